import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { ERROR_ENTRIES, ERROR_MESSAGES } from '@plant-store/schema';
import { launchChromium } from '@plant-store/server/testing';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { copyRepository } from '../../../../test-support/recipes.ts';
import { gzipCosts } from '../support/gzip-cost.ts';
import { markdownSteps, type Step } from '../support/markdown-steps.ts';

// What another team does with the packages: the client README's steps word for word (`pnpm
// pack` both into one folder, `npm install` the tarballs into a new project outside the
// workspace, tsc, node), then the client from plain node (ESM and CommonJS), from TypeScript and
// from a browser page on another origin, against the real server process. The steps start in a
// copy of the repository (as in a clone of it): the pack's build writes that copy's dist/
// folders, never this checkout's, which the server's e2e tier builds and reads meanwhile.

const run = promisify(execFile);
const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const PACKAGES = {
  schema: join(REPO_ROOT, 'packages/schema'),
  client: join(REPO_ROOT, 'packages/client'),
};
const FIXTURES = fileURLToPath(new URL('./consumer/', import.meta.url));
const TSC = join(REPO_ROOT, 'node_modules/typescript/bin/tsc');
const TOKEN = 'consumer-test-token-0123456789';

/**
 * The most the browser bundle (the client with every dependency, minified) may weigh gzipped,
 * for an app that only calls createPlant. The test prints the figure and what each input costs
 * gzipped (`gzipCosts`).
 */
const BROWSER_BUNDLE_BUDGET_GZIP = 12_000;

/** The module settings consumer.ts is checked with, each in a program of its own. */
const MODULE_RESOLUTIONS = {
  nodenext: { module: 'nodenext', moduleResolution: 'nodenext' },
  bundler: { module: 'esnext', moduleResolution: 'bundler' },
};

/** What `npm install` of the two tarballs may install: the runtime, nothing build-time. */
const EXPECTED_PACKAGES = [
  '@plant-store/client',
  '@plant-store/schema',
  'destr',
  'lossless-json',
  'node-fetch-native',
  'ofetch',
  'ufo',
  'zod',
];

const work = mkdtempSync(join(tmpdir(), 'plant-store-consumer-'));
/** The clone the README's steps start in: a copy of this repository (`copyRepository`). */
let clone = '';
/** The consumer's home folder: `~` in the README's steps. */
const home = join(work, 'home');
/** The project the README's steps create (`~/my-app`). */
let project = '';
const tarballs: Record<keyof typeof PACKAGES, string> = { schema: '', client: '' };
let installed: string[] = [];
/** What the last step (`node index.js`) printed, and what index.ts's comments say it prints. */
let printed = '';
let expectedPrint = '';
let serverProcess: ChildProcess | undefined;
let serverUrl = '';
let page: { url: string; server: Server } | undefined;

/** The steps of the client README's walkthrough (see `markdownSteps`). */
const readmeSteps = (markdown: string): Step[] => markdownSteps(markdown, 'consumer-steps');

/** This environment without the npm/pnpm/turbo/vitest variables of the test run. */
function consumerEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(npm_|pnpm_|PNPM_|INIT_CWD|TURBO_|VITEST|NODE_OPTIONS)/i.test(key)) env[key] = value;
  }
  return { ...env, ...extra };
}

/**
 * Runs the README's steps word for word, as a new consumer with its own home folder (npm's
 * download cache stays shared, so nothing is fetched twice). Each shell block starts where the
 * previous one ended (a `cd` carries over); the first starts in the repository clone.
 */
async function followReadme(env: NodeJS.ProcessEnv): Promise<string> {
  const steps = readmeSteps(await readFile(join(PACKAGES.client, 'README.md'), 'utf8'));
  const where = join(work, 'cwd');
  let cwd = clone;
  let output = '';
  for (const step of steps) {
    if (step.kind === 'save') {
      writeFileSync(join(cwd, step.file), step.text);
      continue;
    }
    const { stdout } = await run('sh', ['-ec', `${step.script}\npwd >"${where}"`], {
      cwd,
      env,
      maxBuffer: 64 * 1024 * 1024,
    });
    output = stdout;
    cwd = (await readFile(where, 'utf8')).trim();
  }
  return output;
}

beforeAll(async () => {
  clone = copyRepository();
  page = await servePage();
  serverUrl = await startServer(page.url);

  await run('mkdir', ['-p', home]);
  const npmCache = (await run('npm', ['config', 'get', 'cache'], { env: consumerEnv({}) })).stdout;
  printed = await followReadme(
    consumerEnv({
      HOME: home,
      npm_config_cache: npmCache.trim(),
      // What npm does beside the install and the install does not need: no registry round trip
      // for a package already in the cache, no audit, no funding or new-version notice.
      npm_config_prefer_offline: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
      PLANT_TOKEN: TOKEN,
      PLANT_STORE_URL: serverUrl,
    }),
  );
  project = join(home, 'my-app');
  const index = await readFile(join(project, 'index.ts'), 'utf8');
  expectedPrint = [...index.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)]
    .map((match) => match[1])
    .join('\n');

  const packed = join(home, 'plant-store-packages');
  for (const name of ['schema', 'client'] as const) {
    const file = readdirSync(packed).find((entry) => entry.startsWith(`plant-store-${name}-`));
    if (!file) throw new Error(`pnpm pack of ${name} wrote no tarball`);
    tarballs[name] = join(packed, file);
  }
  const lock = JSON.parse(
    await readFile(join(project, 'node_modules/.package-lock.json'), 'utf8'),
  ) as { packages: Record<string, { dev?: boolean }> };
  installed = Object.entries(lock.packages)
    .filter(([, entry]) => entry.dev !== true)
    .map(([key]) => key.replace(/^.*node_modules\//, ''))
    .sort();
  for (const file of readdirSync(FIXTURES)) copyFileSync(join(FIXTURES, file), join(project, file));
}, 300_000);

afterAll(async () => {
  serverProcess?.kill('SIGTERM');
  await new Promise<void>((resolve) => page?.server.close(() => resolve()) ?? resolve());
  rmSync(work, { recursive: true, force: true });
  if (clone) rmSync(clone, { recursive: true, force: true });
});

describe("the client README's steps, word for word (pack, npm install, tsc, node)", () => {
  it('are found: a pack, a new project, its tsconfig.json and index.ts, then tsc and node', async () => {
    const steps = readmeSteps(await readFile(join(PACKAGES.client, 'README.md'), 'utf8'));
    expect(steps.map((step) => (step.kind === 'run' ? 'run' : step.file))).toEqual([
      'run',
      'run',
      'tsconfig.json',
      'index.ts',
      'run',
    ]);
    expect(
      readmeSteps(
        '<!-- consumer-steps:start -->\nSave as `a.json`:\n\n```json\n{}\n```\n```sh\nls\n```\n<!-- consumer-steps:end -->',
      ),
    ).toEqual([
      { kind: 'save', file: 'a.json', text: '{}\n' },
      { kind: 'run', script: 'ls\n' },
    ]);
  });

  it('end with node printing what index.ts says it prints, against the real server', () => {
    expect(expectedPrint).toBe("{ name: 'Fern' }\n409 40901");
    expect(printed.trim()).toBe(expectedPrint);
  });
});

/** A static page on its own origin, serving what `bundle` put in `files`. */
const files = new Map<string, { type: string; body: string }>();
async function servePage(): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    const file = files.get(request.url ?? '/');
    if (!file) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': file.type }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/**
 * The real server, as an operator starts it (`node dist/main.js`): this run's build of it
 * (`server-build-setup`, the same tsup config as `pnpm build`).
 */
async function startServer(corsOrigin: string): Promise<string> {
  const child = spawn(process.execPath, [join(inject('serverBuild'), 'main.js')], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: join(work, 'plants.db'),
      PLANT_STORE_TOKENS: TOKEN,
      CORS_ORIGINS: corsOrigin,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  serverProcess = child;
  let output = '';
  return new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server exited (${code}): ${output}`)));
  });
}

async function tarList(tarball: string): Promise<string[]> {
  const { stdout } = await run('tar', ['-tzf', tarball]);
  return stdout.trim().split('\n').sort();
}

async function packedManifest(tarball: string): Promise<Record<string, unknown>> {
  const { stdout } = await run('tar', ['-xzOf', tarball, 'package/package.json']);
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe('the packed tarballs', () => {
  it('hold dist, README, CHANGELOG, LICENSE and package.json only', async () => {
    expect(await tarList(tarballs.client)).toEqual([
      'package/CHANGELOG.md',
      'package/LICENSE',
      'package/README.md',
      'package/dist/index.d.ts',
      'package/dist/index.js',
      'package/package.json',
    ]);
    const schema = await tarList(tarballs.schema);
    expect(schema).toEqual(
      expect.arrayContaining([
        'package/CHANGELOG.md',
        'package/LICENSE',
        'package/README.md',
        'package/dist/index.d.ts',
        'package/dist/index.js',
        'package/dist/openapi.d.ts',
        'package/dist/openapi.js',
        'package/openapi.json',
        'package/package.json',
      ]),
    );
    expect(schema.filter((file) => !/^package\/(dist\/|[^/]+$)/.test(file))).toEqual([]);
    expect(schema.filter((file) => /\.test\.|src\/|tsconfig|\.turbo/.test(file))).toEqual([]);
  });

  it('carry real version ranges and exports that point at the built files', async () => {
    for (const tarball of [tarballs.schema, tarballs.client]) {
      const manifest = await packedManifest(tarball);
      const text = JSON.stringify(manifest);
      expect(text).not.toMatch(/workspace:|catalog:/);
      expect(manifest.private).toBeUndefined();
      expect(JSON.stringify(manifest.exports)).not.toContain('/src/');
      expect(manifest.exports).toMatchObject({
        '.': { types: './dist/index.d.ts', default: './dist/index.js' },
      });
      for (const range of Object.values(manifest.dependencies as Record<string, string>)) {
        expect(range).toMatch(/^\^\d+\.\d+\.\d+$/);
      }
    }
    const client = await packedManifest(tarballs.client);
    const schema = await packedManifest(tarballs.schema);
    expect(client.dependencies).toMatchObject({ '@plant-store/schema': `^${schema.version}` });
  });

  it('say what they hold: the version is the newest CHANGELOG entry packed beside it', async () => {
    for (const name of ['schema', 'client'] as const) {
      const manifest = await packedManifest(tarballs[name]);
      const { stdout: changelog } = await run('tar', [
        '-xzOf',
        tarballs[name],
        'package/CHANGELOG.md',
      ]);
      const source = JSON.parse(await readFile(join(PACKAGES[name], 'package.json'), 'utf8'));
      expect(manifest.version).toBe(source.version);
      expect(/^## (\S+)$/m.exec(changelog)?.[1]).toBe(manifest.version);
      expect(tarballs[name]).toMatch(new RegExp(`plant-store-${name}-${manifest.version}\\.tgz$`));
    }
  });

  it('install the runtime and no build-time package (no zod-to-openapi, yaml, tsup, …)', () => {
    expect(installed).toEqual(EXPECTED_PACKAGES);
  });
});

describe('a consumer of the installed packages', () => {
  it('1. node runs an ES module: int64 id, replay, 409 and a validation error both PlantStoreErrors', async () => {
    const { stdout } = await run(process.execPath, ['create.mjs', serverUrl, TOKEN], {
      cwd: project,
    });
    const result = JSON.parse(stdout);
    expect(result.created).toEqual({ name: 'Monstera', tag: 'indoor' });
    expect(result.replayed).toEqual({ name: 'Monstera', tag: 'indoor' });
    expect(result.conflict).toEqual({
      isPlantStoreError: true,
      status: 409,
      code: 40901,
      message: ERROR_MESSAGES.conflict(2n ** 63n - 1n),
    });
    expect(result.invalid).toEqual({
      isValidationError: true,
      isPlantStoreError: true,
      message: expect.stringMatching(/^name: must not be empty; wheels: unknown property$/),
      requestsSent: 0,
    });
    expect(result.requests).toBe(3);
  });

  it('2. a CommonJS script require()s the client and creates a plant', async () => {
    const { stdout, stderr } = await run(process.execPath, ['create.cjs', serverUrl, TOKEN], {
      cwd: project,
    });
    expect(JSON.parse(stdout)).toEqual({ plant: { name: 'Ivy' }, hasErrorClass: true });
    // Node 20.19+ may warn that require(esm) is experimental; nothing else is printed.
    expect(
      stderr.replace(/^.*ExperimentalWarning.*$|^\(Use `node --trace-warnings.*$/gm, '').trim(),
    ).toBe('');
  });

  it.each(Object.keys(MODULE_RESOLUTIONS))(
    '3. tsc --noEmit passes with moduleResolution %s, and the types bite',
    async (name) => {
      const errors = (await typeCheck()).split('\n').filter((line) => /error TS\d+/.test(line));
      // No error outside the two programs' files (their settings, say); in this program none
      // in consumer.ts, and exactly those three in its copy without the @ts-expect-error lines.
      const folders = Object.keys(MODULE_RESOLUTIONS).map((folder) => `${folder}/`);
      expect(errors.filter((line) => !folders.some((folder) => line.startsWith(folder)))).toEqual(
        [],
      );
      const own = errors.filter((line) => line.startsWith(`${name}/`));
      const unguarded = own.filter((line) => line.startsWith(`${name}/unguarded.ts(`));
      expect(own.filter((line) => !unguarded.includes(line))).toEqual([]);
      expect(unguarded).toHaveLength(3);
      expect(unguarded.join('\n')).toContain("'wheels' does not exist");
      expect(unguarded.join('\n')).toContain("Property 'id' does not exist");
    },
  );

  it('4. the esbuild browser bundle runs in Chromium on another origin, through CORS', async () => {
    const result = await build({
      absWorkingDir: project,
      entryPoints: ['browser.mjs'],
      bundle: true,
      minify: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      metafile: true,
      // The map only prices each input (`gzipCosts`); the bundle the page loads is `code`.
      sourcemap: 'external',
      outfile: 'app.js',
      write: false,
      logLevel: 'silent',
    });
    const output = (extension: string) =>
      result.outputFiles.find((file) => file.path.endsWith(extension))?.text ?? '';
    const code = output('.js');
    const gzipped = gzipSync(code, { level: 9 }).length;
    console.log(
      `browser bundle: ${code.length} B minified, ${gzipped} B gzipped; each input's cost:`,
      gzipCosts(code, output('.js.map')),
    );
    expect(gzipped).toBeLessThanOrEqual(BROWSER_BUNDLE_BUDGET_GZIP);
    // Nothing of the OpenAPI builder, no zod locale, no JSON library: the responses hold no int64,
    // and the request body is written by the schema's own exact `stringifyJson`.
    // (The files that put bytes in the bundle: `metafile.inputs` also lists every file resolved
    // and then left out, such as each zod locale that zod/mini's index names.)
    const inputs = Object.entries(result.metafile.outputs['app.js']?.inputs ?? {})
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([path]) => path)
      .join('\n');
    expect(inputs).not.toMatch(
      /zod-to-openapi|\/yaml\/|lossless-json|zod\/v4\/locales\/|\/classic\//,
    );
    expect(inputs).toMatch(/@plant-store\/schema\/dist\//);
    // Nor any of the document's prose or the catalog's explanations.
    for (const text of await proseOfTheDocument()) {
      expect(code.includes(text), `the bundle holds the document's text: ${text}`).toBe(false);
    }

    files.set('/', {
      type: 'text/html; charset=utf-8',
      body: '<!doctype html><title>consumer</title><script type="module" src="/app.js"></script>',
    });
    files.set('/app.js', { type: 'text/javascript; charset=utf-8', body: code });
    const browser = await launchChromium(process.env);
    try {
      const tab = await browser.context.newPage();
      await tab.goto(page?.url ?? '');
      await tab.waitForFunction(() => 'runChecks' in globalThis);
      const outcome = await tab.evaluate(
        ([url, token]) =>
          (
            globalThis as unknown as {
              runChecks(url: string, token: string): Promise<unknown>;
            }
          ).runChecks(url, token),
        [serverUrl, TOKEN] as const,
      );
      expect(new URL(page?.url ?? '').origin).not.toBe(new URL(serverUrl).origin);
      expect(outcome).toEqual({
        created: { name: 'Cactus', tag: 'desert' },
        conflict: { isPlantStoreError: true, name: 'PlantStoreError', status: 409, code: 40901 },
      });
    } finally {
      await browser.close();
    }
  });
});

let typeChecked: Promise<string> | undefined;
/**
 * What tsc prints for one program per entry of MODULE_RESOLUTIONS (a folder of the project
 * each, `<name>/tsconfig.json`) over consumer.ts and a copy of it without the
 * @ts-expect-error lines (both modules: neither sees the other's names). One `tsc -b` builds
 * both programs, in one process that parses the files they share (lib, the packages'
 * declarations) once; each error line names its program's folder.
 */
function typeCheck(): Promise<string> {
  typeChecked ??= (async () => {
    const source = await readFile(join(project, 'consumer.ts'), 'utf8');
    for (const [name, options] of Object.entries(MODULE_RESOLUTIONS)) {
      const folder = join(project, name);
      mkdirSync(folder);
      writeFileSync(join(folder, 'consumer.ts'), source);
      writeFileSync(
        join(folder, 'unguarded.ts'),
        source.replace(/^\s*\/\/ @ts-expect-error.*$/gm, ''),
      );
      writeFileSync(
        join(folder, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            ...options,
            target: 'es2022',
            lib: ['es2022', 'dom'],
            types: [],
            strict: true,
            noEmit: true,
            skipLibCheck: true,
          },
          files: ['consumer.ts', 'unguarded.ts'],
        }),
      );
    }
    return run(process.execPath, [TSC, '-b', ...Object.keys(MODULE_RESOLUTIONS)], {
      cwd: project,
    }).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );
  })();
  return typeChecked;
}

/** Every description and summary of the packed openapi.json, and the catalog's meanings. */
async function proseOfTheDocument(): Promise<string[]> {
  const document = JSON.parse(
    await readFile(join(project, 'node_modules/@plant-store/schema/openapi.json'), 'utf8'),
  ) as unknown;
  const texts: string[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node !== null && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if ((key === 'description' || key === 'summary') && typeof value === 'string') {
          texts.push(...value.split('\n').filter((line) => line.length > 20));
        } else visit(value);
      }
    }
  };
  visit(document);
  expect(texts.length).toBeGreaterThan(50);
  return [...texts, ...ERROR_ENTRIES.map((entry) => entry.meaning)];
}
