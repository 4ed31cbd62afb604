import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOURCE_ASSETS_FOLDER } from '../../src/docs/docs-assets.ts';
import { exitedWithOutput, listeningUrl } from '../support/child-output.ts';
import { readPlantRows } from '../support/read-plant-rows.ts';
import { runCliProcess } from '../support/run-cli.ts';
import { NO_RATE_LIMITS, type SpawnedServer, spawnServer } from '../support/spawn-server.ts';

// docs/operations.md, "Rollbacks", with the previous release itself: its server is built from
// git (the newest commit that still carries the previous version of the packages: the parent
// of the commit that last bumped @plant-store/client), run on a fresh file, backed up with
// `plant-store backup` before the upgrade; this release then serves the same file (the
// upgrade); the rollback restores the backup and starts the previous release's build on it:
// every plant acknowledged before the backup is there.

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));
/** The docs assets' cache folder, relative to the server's folder (the same in every release). */
const SOURCE_ASSETS_PATH = relative(
  fileURLToPath(new URL('../..', import.meta.url)),
  SOURCE_ASSETS_FOLDER,
);
/**
 * Whether this checkout has its git history: `scripts/test-node24.sh` runs the suite in a copy
 * of HEAD without it (the Node 20 run, on the clone, builds the previous release).
 */
const HAS_HISTORY =
  spawnSync('git', ['rev-parse', '--verify', '--quiet', 'HEAD^'], { cwd: ROOT, stdio: 'ignore' })
    .status === 0;
const work = mkdtempSync(join(tmpdir(), 'plant-store-rollback-'));
const previous = join(work, 'previous');
const token = 'rollback-test-token-0123456789abcdef';
const live = join(work, 'live', 'plants.db');
const backup = join(work, 'before-upgrade.db');
const restored = join(work, 'restored', 'plants.db');

interface Started {
  readonly child: ChildProcess;
  readonly url: Promise<string>;
  readonly exited: Promise<number | string>;
}
const started: Started[] = [];
const spawned: SpawnedServer[] = [];
afterAll(async () => {
  for (const server of [...started, ...spawned]) server.child.kill('SIGTERM');
  await Promise.all([...started, ...spawned].map((server) => server.exited));
  rmSync(work, { recursive: true, force: true });
});

/** This environment without the npm/pnpm/vitest variables of the test run. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key === 'npm_config_nodedir' || !/^(npm_|pnpm_|PNPM_|INIT_CWD|TURBO_|VITEST)/.test(key)) {
      env[key] = value;
    }
  }
  return env;
}

/** The previous release's server (its built dist/main.js), as an operator starts it. */
function startPrevious(databaseFile: string): Started {
  const child = spawn(process.execPath, [join(previous, 'apps/server/dist/main.js')], {
    cwd: join(previous, 'apps/server'),
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'warn',
      DATABASE_URL: databaseFile,
      PLANT_STORE_TOKENS: token,
      ...NO_RATE_LIMITS,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = exitedWithOutput(child);
  const url = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const found = listeningUrl(output);
      if (found !== undefined) resolve(found);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    exited.then((code) => reject(new Error(`previous release exited (${code}): ${output}`)));
  });
  url.catch(() => undefined);
  const server = { child, url, exited };
  started.push(server);
  return server;
}

async function create(url: string, id: bigint): Promise<number> {
  const response = await fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: `{"id": ${id}, "name": "Plant ${id}"}`,
  });
  await response.arrayBuffer();
  return response.status;
}

let previousCommit = '';
let buildMs = 0;
beforeAll(async () => {
  if (!HAS_HISTORY) return;
  const git = (...args: string[]) => run('git', args, { cwd: ROOT, maxBuffer: 256 * 1024 * 1024 });
  const bump = (
    await git('log', '-1', '--format=%H', '-G"version":', '--', 'packages/client/package.json')
  ).stdout.trim();
  previousCommit = (await git('rev-parse', `${bump}^`)).stdout.trim();
  const began = performance.now();
  mkdirSync(previous);
  await run('sh', ['-ec', `git archive ${previousCommit} | tar -x -C "${previous}"`], {
    cwd: ROOT,
  });
  // The pnpm running this suite (npm_execpath under `pnpm test`), or, run by hand, the version
  // the root package.json names, through npx.
  const suitePnpm = process.env.npm_execpath;
  const { packageManager } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const [command, ...first] =
    suitePnpm !== undefined && /pnpm\.c?js$/.test(suitePnpm)
      ? [process.execPath, suitePnpm]
      : ['npx', '-y', packageManager];
  const pnpm = (...args: string[]) =>
    run(command, [...first, ...args], {
      cwd: previous,
      env: cleanEnv(),
      maxBuffer: 64 * 1024 * 1024,
    });
  // The server and the workspace packages it builds from, not the whole workspace's tools.
  await pnpm(
    'install',
    '--frozen-lockfile',
    '--prefer-offline',
    '--filter',
    '@plant-store/server...',
  );
  // The API reference files this run's global setup built, where the previous build keeps
  // them before copying them to dist/assets: its build compresses only those whose content
  // differs (a renderer or document changed since), as a second `pnpm build` would.
  cpSync(SOURCE_ASSETS_FOLDER, join(previous, 'apps/server', SOURCE_ASSETS_PATH), {
    recursive: true,
  });
  await pnpm('--filter', '@plant-store/server', 'build');
  buildMs = performance.now() - began;
}, 240_000);

describe.skipIf(!HAS_HISTORY)(
  'rolling back to the previous release, built from git (skipped in a copy without history)',
  () => {
    it('starts the previous release on the backup taken before the upgrade, every plant there', async () => {
      // Before the upgrade: the previous release serves, and is backed up while it does.
      const before = startPrevious(live);
      const beforeUrl = await before.url;
      const acknowledged: bigint[] = [];
      for (let id = 1n; id <= 50n; id++) {
        expect(await create(beforeUrl, id)).toBe(200);
        acknowledged.push(id);
      }
      const copied = await runCliProcess(['backup', backup], { DATABASE_URL: live });
      expect(copied).toMatchObject({ status: 0, stderr: '' });
      before.child.kill('SIGTERM');
      expect(await before.exited).toBe(0);

      // The upgrade: this release serves the same file and takes more creates.
      const upgraded = spawnServer({
        PORT: '0',
        DATABASE_URL: live,
        PLANT_STORE_TOKENS: token,
        ...NO_RATE_LIMITS,
      });
      spawned.push(upgraded);
      const upgradedUrl = await upgraded.ready;
      for (let id = 51n; id <= 60n; id++) expect(await create(upgradedUrl, id)).toBe(200);
      upgraded.child.kill('SIGTERM');
      expect(await upgraded.exited).toBe(0);

      // The rollback: the backup into a fresh folder, the previous release started on it.
      mkdirSync(join(work, 'restored'), { mode: 0o700 });
      copyFileSync(backup, restored);
      const rolledBack = startPrevious(restored);
      const url = await rolledBack.url;
      expect(await create(url, 1n)).toBe(200); // a replay: the plant is there, identical
      expect(await create(url, 61n)).toBe(200);
      const ids = readPlantRows(restored).map((row) => row.id);
      expect(acknowledged.filter((id) => !ids.includes(id))).toEqual([]);
      expect(ids.filter((id) => id > 50n && id < 61n)).toEqual([]); // made after the backup
      console.log(
        `previous release ${previousCommit.slice(0, 7)}: extracted, installed and built in ${(buildMs / 1000).toFixed(1)} s`,
      );
    });
  },
);
