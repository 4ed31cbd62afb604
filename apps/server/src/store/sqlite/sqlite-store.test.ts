import fs from 'node:fs';
import path from 'node:path';
import type { NewPlant } from '@plant-store/schema';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tempSqliteStores } from '../../../test/support/temp-sqlite-stores.ts';
import { StartupError } from '../../config.ts';
import { StoreUnavailableError } from '../plant-store.ts';
import { openSqlite } from './driver.ts';
import { MIGRATIONS } from './migrations.ts';
import { openDatabase } from './open-database.ts';
import type { SqliteStore, SqliteStoreOptions } from './sqlite-store.ts';

const temp = tempSqliteStores('plant-sqlite-');
const openStore = (options?: Partial<SqliteStoreOptions>): SqliteStore => temp.open(options);

/** A second, plain connection to the same file, to look at what is really stored. */
function rawRows(): { id: string; type: string; name: string; tag: string | null }[] {
  const db = openSqlite(temp.filename, { readonly: true });
  try {
    return db
      .prepare<[], { id: string; type: string; name: string; tag: string | null }>(
        'SELECT CAST(id AS TEXT) AS id, typeof(id) AS type, name, tag FROM plants ORDER BY plants.id',
      )
      .all();
  } finally {
    db.close();
  }
}

// Behaviour every store shares (create/replay/conflict, batches, get, close…) is tested once for
// both adapters in test/support/plant-store-contract.ts; these are the SQLite adapter's own cases.

describe('create', () => {
  it('rejects a row SQLite refuses with the constraint that refused it, storing nothing', async () => {
    // Batch-mates of a refused row are the shared contract's case; this is SQLite's reason.
    const store = openStore();
    const plant: NewPlant = { id: 3n, name: 'Fern' };
    Reflect.set(plant, 'name', null); // what a caller that skipped validation could send
    await expect(store.create(plant)).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_NOTNULL' });
    expect(rawRows()).toEqual([]);
  });

  it('rejects with StoreUnavailableError while another connection holds the write lock', async () => {
    // A busy timeout of 0: refused at the first SQLITE_BUSY, without a wait.
    const store = openStore({ busyTimeoutMs: 0 });
    const other = openSqlite(temp.filename);
    other.exec('BEGIN IMMEDIATE');
    try {
      const results = await Promise.allSettled([
        store.create({ id: 1n, name: 'Fern' }),
        store.create({ id: 2n, name: 'Moss' }),
      ]);
      for (const result of results) {
        expect(result).toMatchObject({
          status: 'rejected',
          reason: expect.any(StoreUnavailableError),
        });
      }
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect(await store.create({ id: 1n, name: 'Fern' })).toBe('created');
    expect(rawRows().map((r) => r.id)).toEqual(['1']);
  });
});

describe('persistence', () => {
  it('stores int64 ids as SQLite integers, exactly, across close and reopen', async () => {
    const ids = [-(2n ** 63n), 2n ** 63n - 1n, 2n ** 53n + 1n, -(2n ** 53n) - 1n, 0n, -1n];
    const first = openStore();
    for (const id of ids) expect(await first.create({ id, name: `Plant ${id}` })).toBe('created');
    await first.close();

    const second = openStore();
    // Each id reads back as itself (a replay compares the stored row), and only these are stored:
    // no neighbour was confused with a big id (no rounding through doubles).
    for (const id of ids) {
      expect(await second.create({ id, name: `Plant ${id}` })).toBe('replayed');
    }
    expect(rawRows().map((r) => [r.id, r.type])).toEqual(
      [...ids].sort((a, b) => (a < b ? -1 : 1)).map((id) => [String(id), 'integer']),
    );
  });

  it('creates the parent directory of the file', async () => {
    const filename = path.join(temp.dir, 'nested', 'deeper', 'plants.db');
    const store = openStore({ filename });
    expect(await store.create({ id: 1n, name: 'Fern' })).toBe('created');
    expect(fs.existsSync(filename)).toBe(true);
  });

  it('refuses a file whose schema is newer than this code', () => {
    const db = openSqlite(temp.filename);
    db.pragma('user_version = 99');
    db.close();
    expect(() => openStore()).toThrow(StartupError);
    expect(() => openStore()).toThrow(/version 99/);
  });

  it('refuses an in-memory database', () => {
    expect(() => openStore({ filename: ':memory:' })).toThrow(/needs a database file/);
  });
});

describe('connection settings', () => {
  /** Read back from SQLite on the connection a store opens (synchronous: 1 NORMAL, 2 FULL). */
  const settingsOf = (options: Parameters<typeof openDatabase>[1] = {}) => {
    const db = openDatabase(temp.filename, options);
    const store = openStore({ ...options, db }); // the store on that very connection
    const read = (name: string) => db.pragma(name, { simple: true });
    const settings = {
      journalMode: String(read('journal_mode')),
      synchronous: Number(read('synchronous')),
      busyTimeoutMs: Number(read('busy_timeout')),
      schemaVersion: Number(read('user_version')),
      walAutocheckpoint: Number(read('wal_autocheckpoint')),
    };
    void store.close().then(() => db.close());
    return settings;
  };

  it('uses WAL and synchronous=FULL by default, also when reopening a WAL file', async () => {
    expect(settingsOf({ busyTimeoutMs: 1234 })).toEqual({
      journalMode: 'wal',
      synchronous: 2,
      busyTimeoutMs: 1234,
      schemaVersion: MIGRATIONS.length,
      walAutocheckpoint: 1000,
    });
    await new Promise(setImmediate);

    // A plain better-sqlite3 connection to a WAL file silently gets NORMAL (1): the trap
    // the store avoids by setting synchronous explicitly on every open.
    const plain = openSqlite(temp.filename);
    expect(plain.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(plain.pragma('synchronous', { simple: true })).toBe(1);
    plain.close();

    expect(settingsOf()).toMatchObject({ journalMode: 'wal', synchronous: 2 });
  });

  it('uses synchronous=NORMAL when asked for normal durability', () => {
    expect(settingsOf({ durability: 'normal' }).synchronous).toBe(1);
  });
});

describe('readiness: the database files still being the ones at the path', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /**
   * Makes the store's directory look unchanged for a minute, so that the store trusts it (past
   * 2 s): Date alone faked, at an instant before any real one, and the directory's mtime set a
   * minute before it (a change the kernel stamps later looks new, as it is).
   */
  const directoryUnchangedForAMinute = () => {
    const now = Date.parse('2020-01-02T03:04:05Z');
    vi.useFakeTimers({ toFake: ['Date'], now });
    const longAgo = new Date(now - 60_000);
    fs.utimesSync(temp.dir, longAgo, longAgo);
  };

  it('is ready after opening, and refuses commits once the files were deleted', async () => {
    const store = openStore({ probeIntervalMs: 60_000 });
    expect(await store.create({ id: 1n, name: 'Fern' })).toBe('created');
    expect(await store.probeReadiness()).toEqual({ ready: true });
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${temp.filename}${suffix}`);
    // The commit itself works (into the unlinked file), but is never acknowledged.
    await expect(store.create({ id: 2n, name: 'Moss' })).rejects.toThrow(StoreUnavailableError);
    expect(store.readiness()).toMatchObject({ ready: false, cause: { code: 'FILE_DELETED' } });
    expect(await store.probeReadiness()).toMatchObject({
      ready: false,
      cause: {
        code: 'FILE_DELETED',
        message: `The database file is gone: ${temp.filename} was deleted while the server had it open`,
      },
    });
  });

  it('notices the -wal replaced alone though its directory, unchanged for long, was trusted', async () => {
    // A directory unchanged for 2 s is trusted: one stat of it answers until it changes.
    const store = openStore({ probeIntervalMs: 60_000 });
    const wal = `${temp.filename}-wal`;
    directoryUnchangedForAMinute();
    expect(await store.create({ id: 1n, name: 'Fern' })).toBe('created');
    expect(await store.create({ id: 2n, name: 'Moss' })).toBe('created'); // the trusted path
    fs.copyFileSync(wal, `${wal}.copy`);
    fs.renameSync(`${wal}.copy`, wal);
    await expect(store.create({ id: 3n, name: 'Ivy' })).rejects.toThrow(StoreUnavailableError);
    expect(store.readiness()).toMatchObject({ ready: false, cause: { code: 'FILE_REPLACED' } });
  });

  it('notices the -wal deleted alone though the directory was trusted', async () => {
    const store = openStore({ probeIntervalMs: 60_000 });
    directoryUnchangedForAMinute();
    expect(await store.create({ id: 1n, name: 'Fern' })).toBe('created');
    fs.rmSync(`${temp.filename}-wal`);
    await expect(store.create({ id: 2n, name: 'Moss' })).rejects.toThrow(StoreUnavailableError);
    expect(store.readiness()).toMatchObject({ ready: false, cause: { code: 'FILE_DELETED' } });
  });

  it('notices its directory moved away and another put in its place by the next probe', async () => {
    const store = openStore({ probeIntervalMs: 60_000 });
    directoryUnchangedForAMinute();
    expect(await store.create({ id: 1n, name: 'Fern' })).toBe('created');
    fs.renameSync(temp.dir, `${temp.dir}.moved`);
    fs.mkdirSync(temp.dir);
    for (const suffix of ['', '-wal', '-shm']) {
      fs.copyFileSync(
        `${temp.dir}.moved/${path.basename(temp.filename)}${suffix}`,
        `${temp.filename}${suffix}`,
      );
    }
    expect(await store.probeReadiness()).toMatchObject({
      ready: false,
      cause: { code: 'FILE_REPLACED' },
    });
    await expect(store.create({ id: 2n, name: 'Moss' })).rejects.toThrow(StoreUnavailableError);
    await store.close();
    fs.rmSync(`${temp.dir}.moved`, { recursive: true, force: true });
  });

  it('notices a file replaced under its path by the next probe, without any traffic', async () => {
    const store = openStore({ probeIntervalMs: 60_000 });
    fs.copyFileSync(temp.filename, `${temp.filename}.copy`);
    fs.renameSync(`${temp.filename}.copy`, temp.filename);
    expect(store.readiness()).toEqual({ ready: true });
    expect(await store.probeReadiness()).toMatchObject({
      ready: false,
      cause: { code: 'FILE_REPLACED' },
    });
  });
});
