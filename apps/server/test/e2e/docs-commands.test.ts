import { execFile } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CodeBlock,
  codeBlocks,
  missingOutput,
  shownOutput,
} from '../support/markdown-blocks.ts';
import { serverEntry } from '../support/server-entry.ts';
import { type SpawnedServer, spawnServer } from '../support/spawn-server.ts';

// Every code block of README.md, docs/*.md and the packages' READMEs is run here, in document
// order, against one real server in a scratch folder (so the examples' ids must not collide),
// and its output compared where the block shows it (`# → …`, `// → …`). A block this file does
// not run is run by the test its section names (RUN_ELSEWHERE), or marked in the Markdown
// `<!-- illustrative: reason -->`; any other block fails the first test.
//
// What a reader would do by hand is done once here: `http://127.0.0.1:3000` is the server's
// URL, `TOKEN`/`PLANT_TOKEN` hold its token, `plant-store` is this build's CLI on the PATH, and
// `@plant-store/client` and `@plant-store/schema` are installed in the scratch folder.

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const MODULES = fileURLToPath(new URL('../../node_modules/', import.meta.url));
const TSX = join(MODULES, 'tsx', 'dist', 'cli.mjs');
const TSC = join(MODULES, 'typescript', 'bin', 'tsc');
const DOCUMENTED_URL = 'http://127.0.0.1:3000';
const TOKEN = 'docs-commands-token-0123456789abcdef';

/** Sections whose blocks another test runs as written (that test names the section). */
const RUN_ELSEWHERE: Record<string, string> = {
  'production-recipe': 'apps/server/test/e2e/artifact.test.ts',
  'postgres-recipe': 'apps/server/test/e2e/postgres-recipe.test.ts',
  'systemd-steps': 'apps/server/test/e2e/deploy-steps.test.ts',
  'openapi-fetch-recipe': 'packages/client/test/e2e/openapi-fetch-recipe.test.ts',
  'consumer-steps': 'packages/client/test/e2e/consumer.test.ts',
};

/** README.md, docs/*.md, then each package's README. */
const FILES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
  ...readdirSync(join(ROOT, 'packages'))
    .sort()
    .map((name) => `packages/${name}/README.md`)
    .filter((file) => existsSync(join(ROOT, file))),
];
const BLOCKS = FILES.flatMap((file) => codeBlocks(readFileSync(join(ROOT, file), 'utf8'), file));
const RUNNABLE = new Set(['sh', 'ts', 'js']);
const runHere = (block: CodeBlock) =>
  block.illustrative === undefined &&
  (block.section === undefined || !(block.section in RUN_ELSEWHERE)) &&
  RUNNABLE.has(block.lang);
const where = (block: CodeBlock) => `${block.file}:${block.line}`;

const scratch = mkdtempSync(join(tmpdir(), 'plant-store-docs-'));
const database = join(scratch, 'data', 'plants.db');
let server: SpawnedServer | undefined;
let env: NodeJS.ProcessEnv = {};
let url = '';

beforeAll(async () => {
  server = spawnServer({ PORT: '0', DATABASE_URL: database, PLANT_STORE_TOKENS: TOKEN });
  url = await server.ready;
  // `plant-store`, as the artifact's bin would be on the PATH.
  const bin = join(scratch, 'bin');
  mkdirSync(bin);
  const cli = join(bin, 'plant-store');
  writeFileSync(cli, `#!/bin/sh\nexec "${process.execPath}" "${serverEntry('cli')}" "$@"\n`);
  chmodSync(cli, 0o755);
  // The packages, as `npm install @plant-store/client` would put them.
  mkdirSync(join(scratch, 'node_modules', '@plant-store'), { recursive: true });
  for (const name of ['client', 'schema']) {
    symlinkSync(join(ROOT, 'packages', name), join(scratch, 'node_modules', '@plant-store', name));
  }
  // And what the client README's TypeScript settings ask for.
  mkdirSync(join(scratch, 'node_modules', '@types'));
  symlinkSync(join(MODULES, '@types', 'node'), join(scratch, 'node_modules', '@types', 'node'));
  env = {
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    HOME: scratch,
    TOKEN,
    PLANT_TOKEN: TOKEN,
    PLANT_STORE_URL: url,
    DATABASE_URL: database,
  };
});
afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
  rmSync(scratch, { recursive: true, force: true });
});

function run(command: string, args: string[], cwd: string) {
  return new Promise<{ status: number; output: string }>((resolve) => {
    execFile(command, args, { cwd, env, timeout: 50_000 }, (error, stdout, stderr) => {
      const code = (error as { code?: unknown } | null)?.code;
      resolve({
        status: error === null ? 0 : typeof code === 'number' ? code : -1,
        output: `${stdout}${stderr}`,
      });
    });
  });
}

/** Runs `block` as a reader would, where it says; its exit status and everything it printed. */
async function runBlock(block: CodeBlock, index: number) {
  const code = block.code.replaceAll(DOCUMENTED_URL, url);
  const cwd = block.cwd === 'repository' ? ROOT : scratch;
  if (block.lang === 'sh') return run('bash', ['-eo', 'pipefail', '-c', code], cwd);
  const file = join(scratch, `block-${index}.${block.lang === 'ts' ? 'mts' : 'mjs'}`);
  writeFileSync(file, code);
  return run(process.execPath, [TSX, file], cwd);
}

/** The TypeScript blocks run here, each a module of its own. */
const TYPESCRIPT = BLOCKS.flatMap((block, index) =>
  runHere(block) && block.lang === 'ts' ? [{ block, file: `block-${index}.mts` }] : [],
);

describe('the code blocks of the docs', () => {
  it('are each run here, run by the test their section names, or marked illustrative', () => {
    expect(BLOCKS.filter(runHere).length).toBeGreaterThan(8);
    const unrunnable = BLOCKS.filter(
      (block) =>
        block.illustrative === undefined &&
        !(block.section !== undefined && block.section in RUN_ELSEWHERE) &&
        !RUNNABLE.has(block.lang),
    ).map(
      (block) =>
        `${where(block)}: a \`${block.lang || 'plain'}\` block this test cannot run: mark it <!-- illustrative: why --> or make it a sh/ts block`,
    );
    expect(unrunnable).toEqual([]);
    for (const [section, test] of Object.entries(RUN_ELSEWHERE)) {
      expect(readFileSync(join(ROOT, test), 'utf8'), `${test} runs ${section}`).toMatch(
        new RegExp(`['\`/ ]${section}['\`:]`),
      );
      expect(
        BLOCKS.some((block) => block.section === section),
        `a section ${section} in the docs`,
      ).toBe(true);
    }
    const counts = {
      run: BLOCKS.filter(runHere).length,
      elsewhere: BLOCKS.filter((b) => b.section !== undefined && b.section in RUN_ELSEWHERE).length,
      illustrative: BLOCKS.filter((b) => b.illustrative !== undefined).length,
    };
    console.log(`docs code blocks: ${JSON.stringify(counts)}`);
  });

  // One after another, in the docs' order: later blocks see what earlier ones stored.
  describe.sequential('run as written', () => {
    BLOCKS.forEach((block, index) => {
      if (!runHere(block)) return;
      it(`${where(block)} (${block.lang})`, async () => {
        const { status, output } = await runBlock(block, index);
        expect(status, `${where(block)} exited ${status}:\n${output}`).toBe(0);
        expect(
          missingOutput(shownOutput(block.code), output),
          `${where(block)} printed:\n${output}`,
        ).toEqual([]);
      }, 60_000);
    });
  });

  it('type-check strictly, with the settings the client README gives', async () => {
    expect(TYPESCRIPT.length).toBeGreaterThan(3);
    for (const { block, file } of TYPESCRIPT) writeFileSync(join(scratch, file), block.code);
    const settings = ['--strict', '--module', 'nodenext', '--target', 'es2022', '--types', 'node'];
    const files = TYPESCRIPT.map(({ file }) => file);
    const { status, output } = await run(
      process.execPath,
      // The packages are linked as source, which imports `.ts` files and uses ES2024's library
      // (a consumer's install holds built `.d.ts` files instead): the two extra settings.
      [
        TSC,
        '--noEmit',
        '--skipLibCheck',
        '--allowImportingTsExtensions',
        '--lib',
        'es2024',
        ...settings,
        ...files,
      ],
      scratch,
    );
    // Name the doc and line of each error, not the scratch file.
    const named = TYPESCRIPT.reduce(
      (text, { block, file }) => text.replaceAll(file, `${where(block)} (${file})`),
      output,
    );
    expect(status, named).toBe(0);
  }, 60_000);
});
