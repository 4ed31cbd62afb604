import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { freePort } from '../support/free-port.ts';
import { NO_RATE_LIMITS, type SpawnedServer, spawnServer } from '../support/spawn-server.ts';

// A database the server cannot open ends the start with one line on stderr naming the file or
// the (masked) URL and the error (a file it cannot write: saying so); then exit status 1, no
// stack, no JSON warnings.

const token = 'startup-errors-token-0123456789abcdef';
const servers: SpawnedServer[] = [];
const cleanups: (() => void)[] = [];

afterEach(() => {
  for (const server of servers.splice(0)) server.child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/** A new directory, owned by root (when root) and not writable by others. */
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plant-startup-'));
  fs.chmodSync(dir, 0o755);
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function failedStart(
  env: Record<string, string>,
  user?: { uid: number; gid: number },
  wrapper?: string[],
) {
  const server = spawnServer(
    { PORT: '0', PLANT_STORE_TOKENS: token, ...NO_RATE_LIMITS, ...env },
    { user, ...(wrapper ? { wrapper } : {}) },
  );
  servers.push(server);
  const code = await server.exited;
  const lines = server.output().trim().split('\n');
  return { code, lines };
}

function expectOneLine(lines: string[]): string {
  expect(lines).toHaveLength(1);
  const [line = ''] = lines;
  expect(line).toMatch(/^plant-store: /);
  expect(line).not.toMatch(/\n\s+at |SqliteError|node_modules/);
  return line;
}

describe('a database that cannot be opened stops the start with one line', () => {
  it('names a DATABASE_URL whose directory cannot be made, and the error', async () => {
    const { code, lines } = await failedStart({ DATABASE_URL: '/etc/hostname/plants.db' });
    expect(code).toBe(1);
    const line = expectOneLine(lines);
    expect(line).toBe(
      "plant-store: Cannot open the SQLite database /etc/hostname/plants.db: EEXIST: file already exists, mkdir '/etc/hostname'.",
    );
  });

  it('names a DATABASE_URL that is a directory', async () => {
    const dir = tempDir();
    const { code, lines } = await failedStart({ DATABASE_URL: dir });
    expect(code).toBe(1);
    expect(expectOneLine(lines)).toBe(
      `plant-store: Cannot open the SQLite database ${dir}: it is a directory. Set DATABASE_URL to a file, e.g. ${dir}/plants.db.`,
    );
  });

  describe.skipIf(process.getuid?.() !== 0)('as another user (needs root to switch user)', () => {
    const nobody = { uid: 65534, gid: 65534 };

    it('names a new database in a directory the user cannot write (SQLITE_CANTOPEN)', async () => {
      const filename = path.join(tempDir(), 'plants.db');
      const { code, lines } = await failedStart({ DATABASE_URL: filename }, nobody);
      expect(code).toBe(1);
      const line = expectOneLine(lines);
      expect(line).toContain(
        `Cannot open the SQLite database ${filename}: it cannot be written (SQLITE_CANTOPEN: unable to open database file).`,
      );
    });

    it('names a database file of its own with mode 0444, in a directory it can write (SQLITE_READONLY)', async () => {
      const dir = tempDir();
      fs.chownSync(dir, nobody.uid, nobody.gid);
      const filename = path.join(dir, 'plants.db');
      await createSqliteStore({ filename }).close();
      fs.chownSync(filename, nobody.uid, nobody.gid);
      fs.chmodSync(filename, 0o444);
      const { code, lines } = await failedStart({ DATABASE_URL: filename }, nobody);
      expect(code).toBe(1);
      const line = expectOneLine(lines);
      expect(line).toContain(
        `Cannot open the SQLite database ${filename}: it cannot be written (SQLITE_READONLY`,
      );
    });

    it('names an existing database whose directory the user cannot write (SQLITE_READONLY)', async () => {
      const dir = tempDir();
      const filename = path.join(dir, 'plants.db');
      await createSqliteStore({ filename }).close(); // closed cleanly: no -wal or -shm left
      // Readable by everyone, but nobody cannot make the -wal and -shm files SQLite needs.
      fs.chmodSync(filename, 0o644);
      const { code, lines } = await failedStart({ DATABASE_URL: filename }, nobody);
      expect(code).toBe(1);
      const line = expectOneLine(lines);
      expect(line).toContain(
        `Cannot open the SQLite database ${filename}: it cannot be written (SQLITE_READONLY`,
      );
    });
  });

  it.skipIf(process.getuid?.() !== 0)(
    'names a database on a read-only mount (a private bind mount, remounted read-only)',
    async () => {
      const dir = tempDir();
      const filename = path.join(dir, 'plants.db');
      await createSqliteStore({ filename }).close();
      // In a mount namespace of its own (root only): the test's view of the folder stays writable.
      const mountReadOnly = `mount --bind ${dir} ${dir} && mount -o remount,bind,ro ${dir} && exec "$0" "$@"`;
      const { code, lines } = await failedStart({ DATABASE_URL: filename }, undefined, [
        'unshare',
        '-m',
        'sh',
        '-c',
        mountReadOnly,
      ]);
      expect(code).toBe(1);
      expect(expectOneLine(lines)).toContain(
        `Cannot open the SQLite database ${filename}: it cannot be written (SQLITE_`,
      );
    },
  );

  it('names a PostgreSQL on a closed port (password masked) within about the connect timeout', async () => {
    const url = `postgres://app:hunter2@127.0.0.1:${await freePort()}/plants`;
    const { code, lines } = await failedStart({
      DATABASE_URL: url,
      PG_CONNECT_TIMEOUT_MS: '2000',
    });
    expect(code).toBe(1);
    const line = expectOneLine(lines);
    expect(line).toMatch(
      /^plant-store: Cannot open the PostgreSQL store at postgres:\/\/app:\*\*\*@127\.0\.0\.1:\d+\/plants: .*ECONNREFUSED/,
    );
    expect(line).not.toContain('hunter2');
  });
});
