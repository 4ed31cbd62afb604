import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  applyEdits,
  copyRepository,
  type RecipeEdits,
  readRecipe,
  runCommand,
  runSteps,
} from '../../../../test-support/recipes.ts';

// Follows the recipe "Adding a field" (docs/architecture.md) in a copy of the sources: applies each
// step's edit (held here, keyed by step number), runs the commands the recipe names, and expects
// them to pass. First, in the same copy before its SQLite migration is added, expects the unit
// test that checks the migrations to fail naming the migrations file.

const RECIPE = 'docs/architecture.md';
const HEADING = '### Adding a field';
/** The step that appends the SQLite migration: left out for the negative proof. */
const SQLITE_MIGRATION = 2;

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
  return (text = '') => {
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
const EDITS: RecipeEdits = {
  1: {
    'packages/schema/src/plant-fields.ts': (text = '') =>
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
    'docs/api.md': (text = '') =>
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

const recipe = readRecipe(RECIPE, HEADING);
const commands = recipe.flatMap((step) => step.commands);
const checks = recipe.at(-1)?.commands ?? [];

/** One copy for both proofs: every step's edit but the SQLite migration's, made on first use. */
let copy: string | undefined;
function copyWithoutMigration(): string {
  if (copy) return copy;
  copy = copyRepository();
  const steps = Object.keys(EDITS).map(Number);
  applyEdits(
    copy,
    RECIPE,
    EDITS,
    steps.filter((step) => step !== SQLITE_MIGRATION),
  );
  return copy;
}
afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

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

  // Before the next test adds the migration to the same copy.
  it('without its SQLite migration, fails a unit test that names the migrations file', async () => {
    // The unit test that checks the migrations against the field list, alone: the full run
    // below holds every other check green.
    const { status, output } = await runCommand(
      copyWithoutMigration(),
      'cd apps/server && npx vitest run --project unit src/store/migrations-match-fields.test.ts',
    );
    expect(status).not.toBe(0);
    expect(output).toContain(
      'apps/server/src/store/sqlite/migrations.ts: the field color has no column: append a migration to MIGRATIONS in apps/server/src/store/sqlite/migrations.ts (never edit a released one): ALTER TABLE plants ADD COLUMN color TEXT;',
    );
  }, 900_000);

  it('adds a string, an integer and a boolean field: every command it names passes', async () => {
    const copy = copyWithoutMigration();
    applyEdits(copy, RECIPE, EDITS, [SQLITE_MIGRATION]);
    await runSteps(copy, RECIPE, recipe);
    const document = readFileSync(join(copy, 'packages/schema/openapi.json'), 'utf8');
    const newPlant = JSON.parse(document).components.schemas.NewPlant.properties;
    expect(newPlant.height).toMatchObject({ type: 'integer', minimum: 1, maximum: 10000 });
    expect(newPlant.color).toMatchObject({ type: 'string', minLength: 1, maxLength: 50 });
    expect(newPlant.indoor).toMatchObject({ type: 'boolean' });
  }, 900_000);
});
