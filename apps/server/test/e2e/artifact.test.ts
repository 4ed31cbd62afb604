import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningUrl } from '../support/child-output.ts';

// The server as operators receive it: `pnpm artifact`'s out/server/ copied out of the
// repository, run with plain `node`, its tokens issued with its own bin, stopped by SIGTERM.
// And the dev path: `pnpm start` stopped by a SIGTERM to its top process, `pnpm plant-store`.

const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'plant-store-artifact-'));
/** Every process group started here, killed at the end should a test fail half-way. */
const groups: number[] = [];
afterAll(() => {
  for (const group of groups) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {}
  }
  rmSync(work, { recursive: true, force: true });
});

/** The environment children get: this one without the npm/pnpm variables of the test run. */
function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    // npm_config_nodedir stays: it names the headers native addons build against (the Node 24
    // run points it at Node 24's; without it node-gyp would take ~/.npmrc's, another Node's).
    if (key === 'npm_config_nodedir' || !/^(npm_|pnpm_|PNPM_|INIT_CWD|TURBO_|VITEST)/.test(key)) {
      env[key] = value;
    }
  }
  return { ...env, ...extra };
}

/**
 * A folder holding a `pnpm` command: the pnpm running this suite (npm_execpath under
 * `pnpm test`), or, run by hand, the version the root package.json names, from npx's cache.
 */
function pnpmFolder(): string {
  let cli = process.env.npm_execpath;
  if (cli === undefined || !/pnpm\.c?js$/.test(cli)) {
    const { packageManager } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      packageManager: string;
    };
    cli = execFileSync('npx', ['-y', `--package=${packageManager}`, '-c', 'command -v pnpm'], {
      encoding: 'utf8',
    }).trim();
  }
  const folder = join(work, 'pnpm-bin');
  const shim = join(folder, 'pnpm');
  mkdirSync(folder, { recursive: true });
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`);
  chmodSync(shim, 0o755);
  return folder;
}

interface Started {
  readonly child: ChildProcess;
  readonly url: Promise<string>;
  readonly exited: Promise<number | string>;
  output(): string;
}

/** Starts `command` in its own process group (to find what it leaves behind). */
function startGroup(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Started {
  const child = spawn(command, args, {
    cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid !== undefined) groups.push(child.pid);
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  const url = new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', () => {
      const listening = listeningUrl(text);
      if (listening !== undefined) resolve(listening);
    });
    exited.then((code) => reject(new Error(`exited (${code}) before listening:\n${text}`)));
  });
  url.catch(() => undefined);
  return { child, url, exited, output: () => text };
}

/** Whether any process of the group `pgid` is still alive. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether something listens on 127.0.0.1:`port` (a listen there fails). */
function portTaken(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(true));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(false)));
  });
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  return new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
    const options = { cwd, env, timeout: 280_000, maxBuffer: 256 * 1024 * 1024 };
    execFile(command, args, options, (error, stdout, stderr) => {
      const failure = error as (Error & { code?: unknown; signal?: unknown }) | null;
      const code = failure === null ? 0 : failure.code;
      // Not an exit code (a timeout, a signal, a spawn error): say which in the output.
      const why = failure !== null && typeof code !== 'number' ? `\n${failure.message}` : '';
      resolve({ status: typeof code === 'number' ? code : -1, stdout, stderr: stderr + why });
    });
  });
}

const post = (url: string, token: string, body: string) =>
  fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
  });

/** SIGTERM to `started`'s top process: it exits 0, nothing of its group stays, the port is free. */
async function stopsCleanly(started: Started): Promise<void> {
  const port = Number(new URL(await started.url).port);
  const pgid = started.child.pid as number;
  started.child.kill('SIGTERM');
  expect(await started.exited).toBe(0);
  await expect.poll(() => groupAlive(pgid), { timeout: 15_000 }).toBe(false);
  expect(await portTaken(port)).toBe(false);
}

let pnpmPath: string;
beforeAll(() => {
  pnpmPath = `${pnpmFolder()}:${process.env.PATH ?? ''}`;
});

/** The `production-recipe` block of README.md, the same in docs/deployment.md. */
function productionRecipe(): string {
  const block = (file: string) =>
    /<!-- production-recipe:start -->\n```sh\n([\s\S]*?)```\n<!-- production-recipe:end -->/.exec(
      readFileSync(join(ROOT, file), 'utf8'),
    )?.[1];
  const readme = block('README.md');
  if (readme === undefined) throw new Error('README.md has no production-recipe block');
  expect(block('docs/deployment.md'), 'docs/deployment.md gives the same recipe').toBe(readme);
  return readme;
}

describe('the production artifact (pnpm artifact → out/server/)', () => {
  let artifact: string;
  /** The README's production recipe, run as written (bash -x shows the token it chose). */
  let recipe: Started;
  const recipeData = join(work, 'recipe-data');
  beforeAll(async () => {
    recipe = startGroup('bash', ['-x', '-c', productionRecipe()], ROOT, {
      ...cleanEnv({ PATH: pnpmPath }),
      // Not the recipe's words: a free port, and a database outside the repository.
      PORT: '0',
      DATABASE_URL: join(recipeData, 'plants.db'),
    });
    await recipe.url;
    // Outside the repository: nothing may resolve through the workspace.
    artifact = join(work, 'plant-store');
    // `cp -a`, as an operator copies it: its links kept as they are.
    execFileSync('cp', ['-a', join(ROOT, 'out', 'server'), artifact]);
  }, 300_000);

  it("README's production recipe builds the artifact and runs it in production", async () => {
    const output = recipe.output();
    // No `WARN … legacy deploy implementation` (scripts/artifact.sh deploys from the lockfile).
    expect(output).not.toMatch(/WARN/);
    const token = /^\+ export TOKEN=([0-9a-f]{64})$/m.exec(output)?.[1] ?? '';
    const url = await recipe.url;
    const created = await post(url, token, '{"id": 45, "name": "Olive"}');
    expect(created.status).toBe(200);
    expect((await post(url, `${token}x`, '{"id": 46, "name": "Fig"}')).status).toBe(401);
    // Production: a JSON start-up line, and no development token made or accepted.
    expect(output).toMatch(/^\{.*"msg":"Plant Store is listening on /m);
    expect(existsSync(join(recipeData, 'dev-token'))).toBe(false);
    await stopsCleanly(recipe);
  });

  it('runs with plain node from any working directory on a managed token issued by its bin, and stops on SIGTERM', async () => {
    const env = cleanEnv({ DATABASE_URL: join(work, 'data', 'plants.db') });
    // The bin, as operators call it: `npx plant-store …` inside the artifact.
    const created = await run(
      'npx',
      ['plant-store', 'tokens', 'create', '--name', 'e2e'],
      artifact,
      env,
    );
    expect(created).toMatchObject({ status: 0, stderr: '' });
    expect(created.stdout).toMatch(/^pst_[A-Za-z0-9_-]{49}\n$/);
    const token = created.stdout.trim();
    const listed = await run(
      process.execPath,
      ['dist/cli.js', 'tokens', 'list', '--json'],
      artifact,
      env,
    );
    expect(listed.status, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ id: 1, name: 'e2e', status: 'active' }]);

    // Production on the managed token alone (no PLANT_STORE_TOKENS), started from another
    // working directory.
    const server = startGroup(process.execPath, [join(artifact, 'dist', 'main.js')], work, {
      ...env,
      NODE_ENV: 'production',
      PORT: '0',
      LOG_LEVEL: 'warn',
    });
    const url = await server.url;
    const response = await post(url, token, '{"id": 42, "name": "Monstera", "tag": "indoor"}');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ name: 'Monstera', tag: 'indoor' });
    expect((await post(url, 'x'.repeat(40), '{"id": 43, "name": "Fern"}')).status).toBe(401);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    await stopsCleanly(server);
  });

  it('runs its bin shim with plain node from any working directory', async () => {
    const env = cleanEnv({ DATABASE_URL: join(work, 'data', 'plants.db') });
    const help = await run(
      process.execPath,
      [join(artifact, 'bin', 'plant-store.js'), '--help'],
      work,
      env,
    );
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: plant-store tokens/);
  });
});

describe('the development path', () => {
  it('pnpm start: a SIGTERM to its top process stops the server and frees the port', async () => {
    const started = startGroup('pnpm', ['start'], ROOT, {
      ...cleanEnv({ PATH: pnpmPath }),
      PORT: '0',
      DATABASE_URL: join(work, 'start.db'),
      PLANT_STORE_TOKENS: 'start-test-token-0123456789ab',
      LOG_LEVEL: 'warn',
    });
    const url = await started.url;
    expect(
      (await post(url, 'start-test-token-0123456789ab', '{"id": 1, "name": "Fern"}')).status,
    ).toBe(200);
    await stopsCleanly(started);
    expect(started.output()).not.toContain('ELIFECYCLE');
    // The build says what it does, and turbo a line per task (scripts/build-server.sh), before
    // the server's first line: the first start's minute of building is not silent.
    const output = started.output();
    const building = output.indexOf('Building the server (about a minute the first time');
    const serverTask = output.search(/@plant-store\/server:build: cache (hit|miss|bypass)/);
    expect(building).toBeGreaterThanOrEqual(0);
    expect(serverTask).toBeGreaterThan(building);
    expect(output.indexOf('listening on')).toBeGreaterThan(serverTask);
  }, 180_000);

  it('pnpm -s plant-store: the token alone on stdout, nothing on stderr', async () => {
    const created = await run(
      'pnpm',
      ['-s', 'plant-store', 'tokens', 'create', '--name', 'dev'],
      ROOT,
      cleanEnv({ PATH: pnpmPath, DATABASE_URL: join(work, 'cli.db') }),
    );
    expect(created).toMatchObject({ status: 0, stderr: '' });
    expect(created.stdout).toMatch(/^pst_[A-Za-z0-9_-]{49}\n$/);
  }, 180_000);
});
