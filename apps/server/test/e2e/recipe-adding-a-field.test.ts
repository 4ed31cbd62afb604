import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// Follows the recipe "Adding a field" (docs/architecture.md) in a copy of the sources: applies each step's edit (held
// here, keyed by step number), runs the commands the recipe names, and expects them to pass; then
// leaves out the SQLite migration and expects a unit test to name the migrations file.

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const RECIPE = 'docs/architecture.md';
const HEADING = '### Adding a field';
const WORKSPACES = ['apps/server', 'packages/schema', 'packages/client', 'bench'];

/** The fields the edits add, one of each JSON type a field may have, and their descriptions. */
const NEW_FIELDS = `  color: kind.text({ maxLength: 50, required: false }),
  height: kind.integer({ minimum: 1, maximum: 10000, required: false }),
  indoor: kind.boolean({ required: false }),
`;
const NEW_DESCRIPTIONS = `  color: 'The colour of its leaves',
  height: 'Height in centimetres',
  indoor: 'Whether it grows indoors',
`;

/** `text` with `insert` put on its own lines before the first `end` after `after`. */
function insertedBefore(text: string, after: string, end: string, insert: string): string {
  const at = text.indexOf(`\n${end}`, text.indexOf(after));
  if (!text.includes(after) || at < 0) throw new Error(`the edit expects ${after} … ${end}`);
  return `${text.slice(0, at + 1)}${insert}${text.slice(at + 1)}`;
}

/** A migration appended to a list that ends the file's first `];`. */
function appendMigration(types: [string, string, string]) {
  return (text: string) => {
    const end = text.indexOf('\n];\n');
    const [color, height, indoor] = types;
    const migration = `
  {
    name: 'add color, height and indoor',
    sql: \`
      ALTER TABLE plants ADD COLUMN color ${color};
      ALTER TABLE plants ADD COLUMN height ${height};
      ALTER TABLE plants ADD COLUMN indoor ${indoor};
    \`,
  },`;
    return `${text.slice(0, end)}${migration}${text.slice(end)}`;
  };
}

function replaced(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`the edit expects ${JSON.stringify(from)}`);
  return text.replace(from, to);
}

/** Each step's edits: the file (as the recipe names it) and what becomes of its text. */
const EDITS: Record<number, Record<string, (text: string) => string>> = {
  1: {
    'packages/schema/src/plant-fields.ts': (text) =>
      insertedBefore(
        insertedBefore(text, 'export const FIELDS =', '} satisfies', NEW_FIELDS),
        'export const FIELD_DESCRIPTIONS',
        '};',
        NEW_DESCRIPTIONS,
      ),
  },
  2: {
    'apps/server/src/store/sqlite/migrations.ts': appendMigration(['TEXT', 'INTEGER', 'INTEGER']),
  },
  3: {
    'apps/server/src/store/postgres/migrations.ts': appendMigration(['TEXT', 'BIGINT', 'BOOLEAN']),
  },
  4: {
    'docs/api.md': (text) =>
      replaced(
        replaced(
          text,
          '<!-- new-plant-fields:end -->',
          '| `color` | string | no | 1–50 characters, same rules as `tag` |\n' +
            '| `height` | integer | no | 1–10000 |\n' +
            '| `indoor` | boolean | no | `true` or `false` |\n' +
            '<!-- new-plant-fields:end -->',
        ),
        'with a different name or tag. (The same id with the same name and tag is',
        'with a different name, tag, color, height or indoor. (The same id with the same name, tag, color, height and indoor is',
      ),
  },
  6: {
    '.changeset/<name>.md': () =>
      "---\n'@plant-store/schema': minor\n'@plant-store/client': minor\n---\n\n" +
      'NewPlant and Plant take an optional `color`, `height` and `indoor`.\n',
  },
};

interface Step {
  readonly number: number;
  readonly files: string[];
  readonly commands: string[];
}

/** The recipe's numbered steps: the files each names and the commands it runs, in order. */
function steps(markdown: string): Step[] {
  const found: Step[] = [];
  for (const match of markdown.matchAll(/^(\d+)\. ([\s\S]*?)(?=^\d+\. |^\S|(?![\s\S]))/gm)) {
    const text = match[2] ?? '';
    const spans = [...text.matchAll(/(?<!`)`([^`]+)`(?!`)/g)].map((span) => span[1] ?? '');
    found.push({
      number: Number(match[1]),
      files: spans.filter((span) => /^[\w.-]+(\/[\w.<>-]+)+\.(ts|md|json)$/.test(span)),
      commands: spans.filter((span) => span.startsWith('npx ')),
    });
  }
  return found;
}

/** The environment of a command run in the copy: without this test runner's own variables. */
const env = {
  ...Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('VITEST') && name !== 'NODE_OPTIONS' && name !== 'TEST',
    ),
  ),
  NO_COLOR: '1',
  FORCE_COLOR: '0',
};

const copies: string[] = [];
afterAll(() => {
  for (const copy of copies) rmSync(copy, { recursive: true, force: true });
});

/**
 * A copy of the sources (the files git tracks or would add, as they are in the work tree), with
 * the installed packages linked, and the workspace packages linked to their copies.
 */
function copySources(): string {
  const copy = mkdtempSync(join(tmpdir(), 'plant-recipe-'));
  copies.push(copy);
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((file) => file !== '' && existsSync(join(ROOT, file)));
  for (const file of files) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(ROOT, file), join(copy, file));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  for (const workspace of WORKSPACES) {
    const modules = join(ROOT, workspace, 'node_modules');
    if (!existsSync(modules)) continue;
    mkdirSync(join(copy, workspace, 'node_modules'));
    for (const name of readdirSync(modules)) {
      if (name === '.vite' || name === '.vitest' || name === '.cache') continue; // the copy's own
      const target = join(copy, workspace, 'node_modules', name);
      if (name !== '@plant-store') {
        symlinkSync(realpathSync(join(modules, name)), target);
        continue;
      }
      mkdirSync(target);
      for (const own of readdirSync(join(modules, name))) {
        const source = relative(ROOT, realpathSync(join(modules, name, own)));
        symlinkSync(join(copy, source), join(target, own));
      }
    }
  }
  return copy;
}

/** Applies the edits of every step but those left out. */
function applySteps(copy: string, leaveOut: readonly number[] = []): void {
  for (const [number, edits] of Object.entries(EDITS)) {
    if (leaveOut.includes(Number(number))) continue;
    for (const [file, edit] of Object.entries(edits)) {
      const path = join(copy, file.replace('<name>', 'add-plant-fields'));
      const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
      writeFileSync(path, edit(text));
    }
  }
}

/** Runs `command` in the copy, as a shell would; its exit status and output. */
function run(copy: string, command: string) {
  const result = spawnSync('bash', ['-c', command], {
    cwd: copy,
    env,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** The text under `heading` in `markdown`, up to the next heading of its level or above. */
function section(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`no heading ${JSON.stringify(heading)}`);
  const level = (text: string) => /^(#+) /.exec(text)?.[1]?.length ?? Number.POSITIVE_INFINITY;
  const end = lines.findIndex((line, at) => at > start && level(line) <= level(heading));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

const recipe = steps(section(readFileSync(join(ROOT, RECIPE), 'utf8'), HEADING));
const commands = recipe.flatMap((step) => step.commands);
const checks = recipe.at(-1)?.commands ?? [];

describe(`the recipe "${HEADING.replace(/^#+ /, '')}" in ${RECIPE}`, () => {
  it('names exactly the files its steps edit', () => {
    expect(recipe.map((step) => step.number)).toEqual(recipe.map((_, index) => index + 1));
    for (const step of recipe) {
      expect(step.files, `step ${step.number} of ${RECIPE}`).toEqual(
        Object.keys(EDITS[step.number] ?? {}),
      );
    }
    expect(commands.length).toBeGreaterThan(2);
    expect(checks.join('\n')).toMatch(/typecheck[\s\S]*test:unit/);
  });

  it('adds a string, an integer and a boolean field: every command it names passes', () => {
    const copy = copySources();
    applySteps(copy);
    for (const command of commands) {
      const { status, output } = run(copy, command);
      expect(status, `${command}\n${output.slice(-6000)}`).toBe(0);
    }
    const document = readFileSync(join(copy, 'packages/schema/openapi.json'), 'utf8');
    const newPlant = JSON.parse(document).components.schemas.NewPlant.properties;
    expect(newPlant.height).toMatchObject({ type: 'integer', minimum: 1, maximum: 10000 });
    expect(newPlant.color).toMatchObject({ type: 'string', minLength: 1, maxLength: 50 });
    expect(newPlant.indoor).toMatchObject({ type: 'boolean' });
  }, 900_000);

  it('without its SQLite migration, fails a unit test that names the migrations file', () => {
    const copy = copySources();
    applySteps(copy, [2]);
    // The unit test that checks the migrations against the field list, alone: the full run
    // above already holds every other check green.
    const { status, output } = run(
      copy,
      'cd apps/server && npx vitest run --project unit src/store/migrations-match-fields.test.ts',
    );
    expect(status).not.toBe(0);
    expect(output).toContain(
      'apps/server/src/store/sqlite/migrations.ts: the field color has no column: append a migration to MIGRATIONS in apps/server/src/store/sqlite/migrations.ts (never edit a released one): ALTER TABLE plants ADD COLUMN color TEXT;',
    );
  }, 900_000);
});
