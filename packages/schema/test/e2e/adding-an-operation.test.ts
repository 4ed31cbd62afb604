import { execFile } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  lstatSync,
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
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

// The "Adding an operation" recipe (docs/architecture.md), followed in a copy of
// the repository: each numbered step's edit (held here, keyed by step) applied to the files the
// step names, then the commands the recipe names run, which must pass. A recipe that drifts
// from the code fails here, naming the step.

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const RECIPE = 'docs/architecture.md';
const HEADING = '### Adding an operation';
/** The workspace packages, by name: each gets a node_modules of its own in the copy. */
const PACKAGES: Record<string, string> = {
  '@plant-store/schema': 'packages/schema',
  '@plant-store/client': 'packages/client',
  '@plant-store/server': 'apps/server',
  '@plant-store/bench': 'bench',
};
/** What the budget counts: source and docs, not tests, generated files, changelogs. */
const BUDGET = { files: 8, lines: 250 };

type Edit = (text: string | undefined) => string;

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
const EDITS: Record<number, Record<string, Edit>> = {
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

/** The text under `heading` in `markdown`, up to the next heading of its level or above. */
function section(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) throw new Error(`no heading ${JSON.stringify(heading)}`);
  const level = (text: string) => /^(#+) /.exec(text)?.[1]?.length ?? Number.POSITIVE_INFINITY;
  const end = lines.findIndex((line, at) => at > start && level(line) <= level(heading));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** The numbered steps of the recipe, by number, each as one line of text. */
function recipeSteps(markdown: string): Map<number, string> {
  const steps = new Map<number, string>();
  let current = 0;
  for (const line of markdown.split('\n')) {
    const start = /^(\d+)\. (.*)$/.exec(line);
    if (start) {
      current = Number(start[1]);
      steps.set(current, start[2] ?? '');
    } else if (current > 0 && /^ {3}\S/.test(line)) {
      steps.set(current, `${steps.get(current)} ${line.trim()}`);
    } else if (line.trim() === '' || !/^ /.test(line)) {
      if (line.trim() !== '') current = 0;
    }
  }
  return steps;
}

/** The repository files a step names: each code span that is a path. */
const filesOf = (step: string) =>
  [...step.matchAll(/`([^`\s]+\/[^`\s]+\.(?:ts|md|json))`/g)].map((match) => match[1] ?? '');
/** The commands a step names: each code span that runs something. */
const commandsOf = (step: string) =>
  [...step.matchAll(/`((?:npx|cd) [^`]+)`/g)].map((match) => match[1] ?? '');

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

/**
 * A copy of the repository's files (tracked and new, not ignored) in `target`, with each
 * package's dependencies linked to the originals and the workspace packages to the copies.
 */
async function copyRepository(target: string): Promise<void> {
  const { stdout } = await run('git', ['ls-files', '-co', '--exclude-standard', '-z'], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  for (const file of stdout.split('\0').filter(Boolean)) {
    if (!existsSync(join(ROOT, file))) continue;
    mkdirSync(dirname(join(target, file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(target, file));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(target, 'node_modules'));
  for (const folder of Object.values(PACKAGES)) {
    const from = join(ROOT, folder, 'node_modules');
    const to = join(target, folder, 'node_modules');
    mkdirSync(to, { recursive: true });
    for (const entry of readdirSync(from)) {
      if (entry.startsWith('@')) {
        mkdirSync(join(to, entry));
        for (const name of readdirSync(join(from, entry))) {
          const copy = PACKAGES[`${entry}/${name}`];
          const link = copy ? join(target, copy) : realpathSync(join(from, entry, name));
          symlinkSync(link, join(to, entry, name));
        }
      } else if (entry === '.cache') {
        // Built files a global setup brings up to date: a copy, so the original stays as it is.
        cpSync(join(from, entry), join(to, entry), { recursive: true });
      } else if (lstatSync(join(from, entry)).isSymbolicLink() || entry === '.bin') {
        symlinkSync(realpathSync(join(from, entry)), join(to, entry));
      }
    }
  }
}

/** This environment without the variables of the test run that a nested vitest would read. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm_|pnpm_|PNPM_|INIT_CWD|TURBO_|VITEST|NODE_OPTIONS)/i.test(key)) env[key] = value;
  }
  return env;
}

const work = mkdtempSync(join(tmpdir(), 'plant-store-recipe-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe(`the recipe "${HEADING.replace(/^#+ /, '')}" in ${RECIPE}`, () => {
  const steps = recipeSteps(section(readFileSync(join(ROOT, RECIPE), 'utf8'), HEADING));

  it('names, step by step, exactly the files its example edits', () => {
    expect([...steps.keys()]).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const [number, text] of steps) {
      expect(filesOf(text).sort(), `step ${number}`).toEqual(
        Object.keys(EDITS[number] ?? {}).sort(),
      );
    }
  });

  it('adds an operation with a path parameter, within budget, and every command it names passes', async () => {
    const repository = join(work, 'repository');
    await copyRepository(repository);
    let files = 0;
    let lines = 0;
    for (const [number, edits] of Object.entries(EDITS)) {
      for (const [file, edit] of Object.entries(edits)) {
        const path = join(repository, file);
        const before = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
        let text: string;
        try {
          text = edit(before);
        } catch (error) {
          throw new Error(`step ${number} of ${RECIPE}: ${file}: ${(error as Error).message}`);
        }
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, text);
        if (!/\.test\.ts$|^\.changeset\//.test(file)) {
          files += 1;
          lines += changedLines(before ?? '', text);
        }
      }
    }
    console.log(`adding an operation: ${files} files, ${lines} lines changed (tests excluded)`);
    expect(files).toBeLessThanOrEqual(BUDGET.files);
    expect(lines).toBeLessThanOrEqual(BUDGET.lines);

    const env = cleanEnv();
    for (const [number, text] of steps) {
      for (const command of commandsOf(text)) {
        try {
          await run('sh', ['-ec', command], { cwd: repository, env, maxBuffer: 64 * 1024 * 1024 });
        } catch (error) {
          const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
          throw new Error(
            `step ${number} of ${RECIPE}: \`${command}\` failed:\n${stdout.slice(-4000)}\n${stderr.slice(-4000)}`,
          );
        }
      }
    }
    const document = readFileSync(join(repository, 'packages/schema/openapi.json'), 'utf8');
    expect(JSON.parse(document).paths['/things/{id}'].get.parameters).toEqual([
      {
        name: 'id',
        in: 'path',
        required: true,
        schema: { type: 'string', pattern: '^[0-9]{1,9}$' },
      },
    ]);
    const version = (folder: string) =>
      JSON.parse(readFileSync(join(repository, folder, 'package.json'), 'utf8')).version;
    const released = (folder: string) =>
      JSON.parse(readFileSync(join(ROOT, folder, 'package.json'), 'utf8')).version;
    expect(version('packages/schema')).not.toBe(released('packages/schema'));
  }, 900_000);
});
