import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  applyEdits,
  type Change,
  copyRepository,
  type Edit,
  type RecipeEdits,
  ROOT,
  readRecipe,
  runCommand,
  runSteps,
} from '../../../../test-support/recipes.ts';

// Follows the recipes "Adding a field" and "Adding an operation" (docs/architecture.md) in one
// copy of the sources: applies each step's edit (held here, keyed by step number), runs the
// commands the recipes name, each once (they share their generators and their checks), and
// expects them to pass. Each recipe's commands are pinned below, so a recipe that drops one
// fails here even when the other recipe still names it. First, in the same copy before its
// SQLite migration is added, expects the unit test that checks the migrations to fail naming
// the migrations file.

const RECIPES = 'docs/architecture.md';
const FIELD = '### Adding a field';
const OPERATION = '### Adding an operation';
/** The step of "Adding a field" that appends the SQLite migration: left out, then added. */
const SQLITE_MIGRATION = 2;

/**
 * An operation's budget, counted in source and docs (not tests, generated files, changesets):
 * here a read from both stores, with a 404 code of its own.
 */
const BUDGET = { files: 8, lines: 250 };

/** The commands both recipes name: the generators, the release, and the checks. */
const GENERATE = [
  'npx -y pnpm@10.34.9 --filter @plant-store/schema run openapi',
  'npx -y pnpm@10.34.9 --filter @plant-store/client run consumer-types',
];
const RELEASE = 'npx -y pnpm@10.34.9 version-packages';
const CHECKS = [
  'npx tsc -p tsconfig.json',
  'npx -y pnpm@10.34.9 --filter "./packages/*" --filter @plant-store/server run test:unit',
];

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

/** "Adding a field", each step's edits: the file (as the recipe names it) and what becomes of its text. */
const FIELD_EDITS: RecipeEdits = {
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
        text,
        '<!-- new-plant-fields:end -->',
        '| `color` | string | no | 1–50 characters, same rules as `tag` |\n' +
          '| `height` | integer | no | 1–10000 |\n' +
          '| `indoor` | boolean | no | `true` or `false` |\n' +
          '<!-- new-plant-fields:end -->',
      ),
  },
  6: {
    '.changeset/<name>.md': () =>
      "---\n'@plant-store/schema': minor\n'@plant-store/client': minor\n---\n\n" +
      'NewPlant and Plant take an optional `color`, `height` and `indoor`.\n',
  },
};

/** Inserts `text` after the first `anchor` (a missing anchor names the step and file). */
const after =
  (anchor: string, text: string): Edit =>
  (old) => {
    if (old === undefined || !old.includes(anchor)) throw new Error(`no "${anchor}" to edit`);
    return old.replace(anchor, `${anchor}${text}`);
  };
const create =
  (text: string): Edit =>
  (old) => {
    if (old !== undefined) throw new Error('the file already exists');
    return text;
  };
const append =
  (text: string): Edit =>
  (old) =>
    `${old ?? ''}${text}`;
/** Replaces the first `from` (a missing one names the step and file). */
const replacedIn =
  (from: string, to: string): Edit =>
  (old) =>
    replaced(old ?? '', from, to);

/** "Adding an operation", step by step: the files each step edits, and how. */
const OPERATION_EDITS: RecipeEdits = {
  1: {
    'packages/schema/src/error-catalog.ts': after(
      "    example: (message) => message('GET', '/plant'),\n  }),\n",
      `  plantNotFound: entry({
    code: 40402,
    status: 404,
    meaning: 'No plant has this id.',
    summary: 'No plant has the requested id.',
    message: (id: bigint) => \`No plant with id \${id}\`,
    example: (message) => message(12n),
  }),
`,
    ),
  },
  2: {
    'packages/schema/src/operations/get-plant.ts': create(`import * as z from 'zod/mini';
import { defineCall, defineOperation } from '../operation.ts';
import { int64Param } from '../params.ts';
import { Plant } from '../plant.ts';

/** \`GET /plants/{id}\`: what a client sends it with. */
export const getPlantCall = defineCall({
  operationId: 'getPlant',
  method: 'get',
  path: '/plants/{id}',
  auth: 'bearer',
  params: z.object({ id: int64Param }),
  response: { status: 200, schema: Plant },
});

/** \`GET /plants/{id}\`: the plant with this id. */
export const getPlant = /* @__PURE__ */ defineOperation(getPlantCall, {
  tag: 'plants',
  errors: [
    'validationFailed',
    'unauthorized',
    'plantNotFound',
    'rateLimited',
    'internal',
    'storeUnavailable',
  ],
  summary: 'Read a plant',
  description: 'Returns the plant with this id (without its id).',
  success: 'Plant response',
});
`),
  },
  3: {
    'packages/schema/src/contract.ts': (old) =>
      after(
        '  getIndex,\n',
        '  getPlant,\n',
      )(
        after(
          "export { createPlant, createPlantCall } from './operations/create-plant.ts';\n",
          "export { getPlant, getPlantCall } from './operations/get-plant.ts';\n",
        )(
          after(
            "import { createPlant } from './operations/create-plant.ts';\n",
            "import { getPlant } from './operations/get-plant.ts';\n",
          )(old),
        ),
      ),
  },
  4: {
    'apps/server/src/store/plant-store.ts': (old) =>
      after(
        '  create(plant: NewPlant): Promise<CreateOutcome>;\n',
        '  /** The plant with this id, or undefined when there is none. */\n  get(id: bigint): Promise<Plant | undefined>;\n',
      )(after('  type NewPlant,\n', '  type Plant,\n')(old)),
    'apps/server/src/store/sqlite/sqlite-store.ts': (old) =>
      after(
        '  protected translate = translateSqliteError;\n',
        `
  async get(id: bigint): Promise<Plant | undefined> {
    try {
      const row = this.#select.get(id);
      return row && plantOf(row);
    } catch (error) {
      throw this.translate(error);
    }
  }
`,
      )(
        replacedIn(
          "import type { NewPlant } from '@plant-store/schema';",
          "import { type NewPlant, type Plant, plantOf } from '@plant-store/schema';",
        )(old),
      ),
    'apps/server/src/store/postgres/postgres-store.ts': (old) =>
      after(
        '  protected translate = translatePostgresError;\n',
        `
  async get(id: bigint): Promise<Plant | undefined> {
    try {
      const [row] = await this.#query<PlantRow>(SELECT_MANY, [[id.toString()]]);
      return row && plantOf(row);
    } catch (error) {
      throw this.translate(error);
    }
  }
`,
      )(
        replacedIn(
          "import { FIELD_LIST, type NewPlant } from '@plant-store/schema';",
          "import { FIELD_LIST, type NewPlant, type Plant, plantOf } from '@plant-store/schema';",
        )(old),
      ),
    'apps/server/src/handlers.ts': after(
      "    getIndex: async () => ({ docs: '/docs', openapi: '/openapi.json' }),\n",
      `    getPlant: async ({ params }) => {
      const plant = await store.get(params.id);
      if (!plant) throw new ApiError('plantNotFound', ERROR_MESSAGES.plantNotFound(params.id));
      return plant;
    },
`,
    ),
  },
  5: {
    'packages/client/src/client.ts': (old) =>
      after(
        '  createPlantCall,\n',
        '  getPlantCall,\n',
      )(
        after(
          '  createPlant(newPlant: NewPlantInput): Promise<Plant>;\n',
          '\n  /** `GET /plants/{id}`: the plant with this id; none is a 404 `PlantStoreError`. */\n  getPlant(id: bigint): Promise<Plant>;\n',
        )(
          after(
            '    createPlant: (newPlant) => callOperation(config, createPlantCall, { body: newPlant }),\n',
            '    getPlant: (id) => callOperation(config, getPlantCall, { params: { id } }),\n',
          )(old),
        ),
      ),
  },
  7: {
    'apps/server/src/handlers.test.ts': (old) =>
      append(`
describe('getPlant', () => {
  it('answers the stored plant by its id, 404 (plantNotFound) for another, 400 for a bad id', async () => {
    const { send } = appOver();
    await send(create('Fern'));
    const found = await send({ method: 'GET', url: '/plants/9223372036854775807' });
    expect(found.json()).toEqual({ name: 'Fern' });
    const missing = await send({ method: 'GET', url: '/plants/-9223372036854775808' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({
      error: ERROR_CATALOG.plantNotFound.code,
      message: 'No plant with id -9223372036854775808',
    });
    for (const id of ['fern', '9223372036854775808', '1.5']) {
      const bad = await send({ method: 'GET', url: \`/plants/\${id}\` });
      expect(bad.json(), id).toEqual({
        error: ERROR_CATALOG.validationFailed.code,
        message:
          'path parameter id: must be a whole number from -9223372036854775808 to 9223372036854775807',
      });
    }
  });
});
`)(
        after(
          '        create: (plant) => store.create(plant),\n',
          '        get: (id) => store.get(id),\n',
        )(old),
      ),
    'packages/schema/src/openapi/document.test.ts': replacedIn(
      "      '/plants',\n      '/readyz',\n",
      "      '/plants',\n      '/plants/{id}',\n      '/readyz',\n",
    ),
    'packages/schema/src/error-messages.test.ts': replacedIn(
      '  methodNotAllowed: [\n',
      "  plantNotFound: [M.plantNotFound(10n), 'No plant with id 10'],\n  methodNotAllowed: [\n",
    ),
    // GET /plants/{id} now answers /plants/1 and its like: the fuzz model's unknown paths
    // move one segment down.
    'apps/server/test/security/requests.ts': (old) =>
      [
        ['/plants/1', '/plants/1/2'],
        ['/plants/..%2f', '/plants/1/..%2f'],
        ['/plants/%00', '/plants/1/%00'],
      ].reduce((text, [from, to]) => replacedIn(`  '${from}',\n`, `  '${to}',\n`)(text), old ?? ''),
    'apps/server/test/error-examples.test.ts': after(
      "  methodNotAllowed: () => send(server, '/plants', { method: 'GET' }),\n",
      `  plantNotFound: () =>
    send(server, '/plants/12', { headers: { authorization: \`Bearer \${server.token}\` } }),
`,
    ),
  },
  8: {
    '.changeset/get-plant.md': create(`---
'@plant-store/schema': minor
'@plant-store/client': minor
---

\`GET /plants/{id}\`, its 404 code 40402 and the client's \`getPlant(id)\`.
`),
  },
};

/** Lines added plus lines removed, as a line diff counts them (by multiset of lines). */
function changedLines(before: string, after: string): number {
  const count = (text: string) => {
    const counts = new Map<string, number>();
    for (const line of text.split('\n')) counts.set(line, (counts.get(line) ?? 0) + 1);
    return counts;
  };
  const a = count(before);
  const b = count(after);
  let changed = 0;
  for (const [line, n] of b) changed += Math.max(0, n - (a.get(line) ?? 0));
  for (const [line, n] of a) changed += Math.max(0, n - (b.get(line) ?? 0));
  return changed;
}

const recipes = [
  { heading: FIELD, edits: FIELD_EDITS },
  { heading: OPERATION, edits: OPERATION_EDITS },
].map(({ heading, edits }) => ({
  name: `"${heading.replace(/^#+ /, '')}" (${RECIPES})`,
  title: heading.replace(/^#+ /, ''),
  edits,
  steps: readRecipe(RECIPES, heading),
}));
const [field, operation] = recipes as [(typeof recipes)[0], (typeof recipes)[0]];

/** One copy for every proof: both recipes' edits but the SQLite migration, made on first use. */
let copy: string | undefined;
let operationChanges: Change[] = [];
function copyWithoutMigration(): string {
  if (copy) return copy;
  copy = copyRepository();
  const fieldSteps = Object.keys(FIELD_EDITS).map(Number);
  applyEdits(
    copy,
    field.name,
    FIELD_EDITS,
    fieldSteps.filter((step) => step !== SQLITE_MIGRATION),
  );
  operationChanges = applyEdits(copy, operation.name, OPERATION_EDITS);
  return copy;
}
afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

describe(`the recipes of ${RECIPES}`, () => {
  it.each(recipes)('$title names, step by step, exactly the files its example edits', (recipe) => {
    expect(recipe.steps.map((step) => step.number)).toEqual(
      recipe.steps.map((_, index) => index + 1),
    );
    for (const step of recipe.steps) {
      expect([...step.files].sort(), `step ${step.number} of ${recipe.name}`).toEqual(
        Object.keys(recipe.edits[step.number] ?? {}).sort(),
      );
    }
  });

  it.each(recipes)('$title names the generators, the release, then the checks', (recipe) => {
    const commands = recipe.steps.flatMap((step) => step.commands);
    expect(commands, recipe.name).toEqual([...GENERATE, RELEASE, ...CHECKS]);
    expect(recipe.steps.at(-1)?.commands, `the last step of ${recipe.name}`).toEqual(CHECKS);
  });

  // Before the last test adds the migration to the same copy.
  it('without its SQLite migration, a field fails a unit test that names the migrations file', async () => {
    // The unit test that checks the migrations against the field list, alone: the full run
    // below holds every other check green.
    const { status, output } = await runCommand(
      copyWithoutMigration(),
      'cd apps/server && node_modules/.bin/vitest run --project unit src/store/migrations-match-fields.test.ts',
    );
    expect(status).not.toBe(0);
    expect(output).toContain(
      'apps/server/src/store/sqlite/migrations.ts: the field color has no column: append a migration to MIGRATIONS in apps/server/src/store/sqlite/migrations.ts (never edit a released one): ALTER TABLE plants ADD COLUMN color TEXT;',
    );
  }, 900_000);

  it('a store-backed read with a path parameter and its own 404 code stays within budget', () => {
    copyWithoutMigration();
    const counted = operationChanges.filter(
      ({ file }) => !/\.test\.ts$|(^|\/)test\/|^\.changeset\//.test(file),
    );
    // The whole change: the new error, the operation, the PlantStore port and both stores.
    expect(counted.map(({ file }) => file)).toEqual(
      expect.arrayContaining([
        'packages/schema/src/error-catalog.ts',
        'apps/server/src/store/plant-store.ts',
        'apps/server/src/store/sqlite/sqlite-store.ts',
        'apps/server/src/store/postgres/postgres-store.ts',
      ]),
    );
    const lines = counted.reduce(
      (sum, { before, after }) => sum + changedLines(before ?? '', after),
      0,
    );
    expect(counted.length).toBeLessThanOrEqual(BUDGET.files);
    expect(lines).toBeLessThanOrEqual(BUDGET.lines);
  });

  it('adds three fields and an operation: every command the recipes name passes', async () => {
    const copy = copyWithoutMigration();
    applyEdits(copy, field.name, FIELD_EDITS, [SQLITE_MIGRATION]);
    await runSteps(copy, recipes);
    const document = JSON.parse(readFileSync(join(copy, 'packages/schema/openapi.json'), 'utf8'));
    const newPlant = document.components.schemas.NewPlant.properties;
    expect(newPlant.height).toMatchObject({ type: 'integer', minimum: 1, maximum: 10000 });
    expect(newPlant.color).toMatchObject({ type: 'string', minLength: 1, maxLength: 50 });
    expect(newPlant.indoor).toMatchObject({ type: 'boolean' });
    expect(document.paths['/plants/{id}'].get.parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
    ]);
    // The new code, from its catalog entry alone: an example and its part of the description,
    // in getPlant's 404 only (createPlant never sends it).
    const responseOf = (operation: { responses: Record<string, { $ref: string }> }) =>
      document.components.responses[
        operation.responses['404']?.$ref.replace('#/components/responses/', '') ?? ''
      ];
    const notFound = responseOf(document.paths['/plants/{id}'].get);
    expect(notFound.description).toContain('40402: No plant has the requested id.');
    expect(notFound.content['application/json'].examples.plantNotFound.value).toEqual({
      error: 40402,
      message: 'No plant with id 12',
    });
    expect(
      Object.keys(responseOf(document.paths['/plants'].post).content['application/json'].examples),
    ).toEqual(['notFound']);
    const version = (root: string) =>
      JSON.parse(readFileSync(join(root, 'packages/schema/package.json'), 'utf8')).version;
    expect(version(copy)).not.toBe(version(ROOT));
  }, 900_000);
});
