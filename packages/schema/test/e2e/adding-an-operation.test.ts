import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  applyEdits,
  copyRepository,
  type Edit,
  type RecipeEdits,
  ROOT,
  readRecipe,
  runSteps,
} from '../../../../test-support/recipes.ts';

// The "Adding an operation" recipe (docs/architecture.md), followed in a copy of
// the repository: each numbered step's edit (held here, keyed by step) applied to the files the
// step names, then the commands the recipe names run, which must pass. A recipe that drifts
// from the code fails here, naming the step.

const RECIPE = 'docs/architecture.md';
const HEADING = '### Adding an operation';

/** What the budget counts: source and docs, not tests, generated files, changelogs. */
const BUDGET = { files: 8, lines: 250 };

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

/** The recipe's example, step by step: the files each step edits, and how. */
const EDITS: RecipeEdits = {
  1: {
    'packages/schema/src/operations/get-thing.ts': create(`import * as z from 'zod/mini';
import { defineCall, defineOperation } from '../operation.ts';
import { Plant } from '../plant.ts';

/** \`GET /things/{id}\`: what a client sends it with. */
export const getThingCall = defineCall({
  operationId: 'getThing',
  method: 'get',
  path: '/things/{id}',
  auth: 'bearer',
  params: z.object({
    id: z.pipe(
      z.string().check(z.regex(/^[0-9]{1,9}$/, 'must be a whole number of at most 9 digits')),
      z.transform((text: string) => Number(text)),
    ),
  }),
  response: { status: 200, schema: Plant },
});

/** \`GET /things/{id}\`: the thing with this id. */
export const getThing = /* @__PURE__ */ defineOperation(getThingCall, {
  tag: 'plants',
  errors: ['validationFailed', 'unauthorized', 'rateLimited', 'internal'],
  summary: 'Read a thing',
  description: 'The thing with this id.',
  success: 'The thing.',
});
`),
  },
  2: {
    'packages/schema/src/contract.ts': (old) =>
      after(
        '  getIndex,\n',
        '  getThing,\n',
      )(
        after(
          "import { createPlant } from './operations/create-plant.ts';\n",
          "import { getThing } from './operations/get-thing.ts';\n",
        )(old),
      ),
  },
  3: {
    'apps/server/src/handlers.ts': after(
      "    getIndex: async () => ({ docs: '/docs', openapi: '/openapi.json' }),\n",
      `    getThing: async ({ params }) => {
      if (params.id !== 1) throw new ApiError('notFound', \`No thing with id \${params.id}\`);
      return { name: 'Fern' };
    },
`,
    ),
  },
  4: {
    'packages/schema/src/shapes.ts': append(
      "export { getThingCall } from './operations/get-thing.ts';\n",
    ),
    'packages/client/src/client.ts': (old) =>
      after(
        '  createPlantCall,\n',
        '  getThingCall,\n',
      )(
        after(
          '  createPlant(newPlant: NewPlantInput): Promise<Plant>;\n',
          '  /** `GET /things/{id}`: the thing with this id. */\n  getThing(id: number): Promise<Plant>;\n',
        )(
          after(
            '    createPlant: (newPlant) => callOperation(config, createPlantCall, { body: newPlant }),\n',
            '    getThing: (id) => callOperation(config, getThingCall, { params: { id } }),\n',
          )(old),
        ),
      ),
  },
  5: {
    'docs/api.md': append(`
## GET /things/{id}: read a thing

The thing with this id (\`Authorization: Bearer <token>\`): 200 with a Plant, 404 (\`error\`
40401) when there is none, 400 (\`error\` 40001) when \`id\` is not a whole number.
`),
  },
  7: {
    'apps/server/src/handlers.test.ts': append(`
describe('getThing', () => {
  it('answers the thing by its id, 404 for another, 400 for an id that is not a number', async () => {
    const { send } = appOver();
    const found = await send({ method: 'GET', url: '/things/1' });
    expect(found.json()).toEqual({ name: 'Fern' });
    expect((await send({ method: 'GET', url: '/things/2' })).statusCode).toBe(404);
    const bad = await send({ method: 'GET', url: '/things/x' });
    expect(bad.json()).toEqual({
      error: ERROR_CATALOG.validationFailed.code,
      message: 'path parameter id: must be a whole number of at most 9 digits',
    });
  });
});
`),
    'packages/schema/src/openapi/document.test.ts': after(
      "      '/readyz',\n",
      "      '/things/{id}',\n",
    ),
  },
  8: {
    '.changeset/get-thing.md': create(`---
'@plant-store/schema': minor
'@plant-store/client': minor
---

\`GET /things/{id}\` and the client's \`getThing(id)\`.
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

const steps = readRecipe(RECIPE, HEADING);
let copy: string | undefined;
afterAll(() => {
  if (copy) rmSync(copy, { recursive: true, force: true });
});

describe(`the recipe "${HEADING.replace(/^#+ /, '')}" in ${RECIPE}`, () => {
  it('names, step by step, exactly the files its example edits', () => {
    expect(steps.map((step) => step.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const step of steps) {
      expect([...step.files].sort(), `step ${step.number}`).toEqual(
        Object.keys(EDITS[step.number] ?? {}).sort(),
      );
    }
  });

  it('adds an operation with a path parameter, within budget, and every command it names passes', async () => {
    copy = copyRepository();
    let files = 0;
    let lines = 0;
    for (const { file, before, after } of applyEdits(copy, RECIPE, EDITS)) {
      if (!/\.test\.ts$|^\.changeset\//.test(file)) {
        files += 1;
        lines += changedLines(before ?? '', after);
      }
    }
    console.log(`adding an operation: ${files} files, ${lines} lines changed (tests excluded)`);
    expect(files).toBeLessThanOrEqual(BUDGET.files);
    expect(lines).toBeLessThanOrEqual(BUDGET.lines);

    await runSteps(copy, RECIPE, steps);
    const document = readFileSync(join(copy, 'packages/schema/openapi.json'), 'utf8');
    expect(JSON.parse(document).paths['/things/{id}'].get.parameters).toEqual([
      {
        name: 'id',
        in: 'path',
        required: true,
        schema: { type: 'string', pattern: '^[0-9]{1,9}$' },
      },
    ]);
    const version = (root: string) =>
      JSON.parse(readFileSync(join(root, 'packages/schema/package.json'), 'utf8')).version;
    expect(version(copy)).not.toBe(version(ROOT));
  }, 900_000);
});
