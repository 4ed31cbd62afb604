import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SpawnedServer, spawnServer } from '../support/spawn-server.ts';

// Files only the service can read: the real server, started with umask 000 (the loosest there
// is; the children of this test process inherit it), makes its data directory 0700 and every
// file in it (the database, its -wal and -shm, the rate limits' side file, the development
// token) 0600, in development and in production. An existing looser directory gets one warning.

const root = mkdtempSync(join(tmpdir(), 'plant-store-modes-'));
const token = 'modes-test-token-0123456789abcdef';
const started: SpawnedServer[] = [];
let umask = 0;
beforeAll(() => {
  umask = process.umask(0o000);
});
afterAll(async () => {
  process.umask(umask);
  for (const server of started) server.child.kill('SIGTERM');
  await Promise.all(started.map((server) => server.exited));
  rmSync(root, { recursive: true, force: true });
});

function start(env: Record<string, string>): SpawnedServer {
  const server = spawnServer({ PORT: '0', ...env });
  started.push(server);
  return server;
}

/** One create, so that the WAL holds a commit (and exists). */
async function createPlant(url: string, bearer: string): Promise<number> {
  const response = await fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: '{"id": 9223372036854775807, "name": "Fern"}',
  });
  return response.status;
}

/** The permission bits of `path`, as `ls -l` would show them in octal. */
const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8).padStart(4, '0');

/** Every entry of `dir` with its mode, while the server runs. */
const modesIn = (dir: string) =>
  Object.fromEntries(readdirSync(dir).map((name) => [name, modeOf(join(dir, name))]));

describe('with umask 000, the data directory is 0700 and every file in it 0600', () => {
  it('in development: the database, -wal, -shm, the limits side file and dev-token', async () => {
    const data = join(root, 'development', 'data');
    const server = start({ DATABASE_URL: join(data, 'plants.db') });
    const url = await server.ready;
    const devToken = readFileSync(join(data, 'dev-token'), 'utf8').trim();
    expect(await createPlant(url, devToken)).toBe(200);
    expect(modeOf(data)).toBe('0700');
    const modes = modesIn(data);
    expect(Object.keys(modes)).toEqual(
      expect.arrayContaining(['dev-token', 'plants.db', 'plants.db-wal', 'plants.db-shm']),
    );
    expect(Object.entries(modes).filter(([, mode]) => mode !== '0600')).toEqual([]);
    expect(server.output()).not.toContain('data directory');
  });

  it('in production (NODE_ENV=production): the same, without a development token', async () => {
    const data = join(root, 'production', 'data');
    const server = start({
      NODE_ENV: 'production',
      PLANT_STORE_TOKENS: token,
      DATABASE_URL: join(data, 'plants.db'),
    });
    expect(await createPlant(await server.ready, token)).toBe(200);
    expect(modeOf(data)).toBe('0700');
    const modes = modesIn(data);
    expect(Object.keys(modes)).toEqual(
      expect.arrayContaining(['plants.db', 'plants.db-wal', 'plants.db-shm']),
    );
    expect(Object.keys(modes)).not.toContain('dev-token');
    expect(Object.entries(modes).filter(([, mode]) => mode !== '0600')).toEqual([]);
  });
});

describe('an existing directory others may enter', () => {
  it('is kept as it is, with one warning at start that says how to narrow it', async () => {
    const data = join(root, 'loose');
    mkdirSync(data);
    chmodSync(data, 0o755);
    const server = start({
      NODE_ENV: 'production',
      PLANT_STORE_TOKENS: token,
      DATABASE_URL: join(data, 'plants.db'),
    });
    expect(await createPlant(await server.ready, token)).toBe(200);
    const warnings = server.output().match(/the data directory [^"]+ is mode 0755[^"]*/g) ?? [];
    expect(warnings).toEqual([
      `the data directory ${data} is mode 0755: other users of this host may read its files; run chmod 700 ${data}`,
    ]);
    expect(modeOf(data)).toBe('0755');
    expect(modeOf(join(data, 'plants.db'))).toBe('0600');
  });
});
