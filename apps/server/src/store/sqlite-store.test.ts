import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { NewPlant } from '@plant-store/schema';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, SchemaTooNewError } from './migrations.ts';
import { type CreateOutcome, StoreUnavailableError } from './plant-store.ts';
import { openSqlite } from './sqlite-driver.ts';
import { createSqliteStore, type SqliteStore, type SqliteStoreOptions } from './sqlite-store.ts';

let dir: string;
let filename: string;
const open: SqliteStore[] = [];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plant-sqlite-'));
  filename = path.join(dir, 'plants.db');
});

afterEach(async () => {
  for (const store of open.splice(0)) await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function openStore(options: Partial<SqliteStoreOptions> = {}): SqliteStore {
  const store = createSqliteStore({ filename, ...options });
  open.push(store);
  return store;
}

/** A second, plain connection to the same file, to look at what is really stored. */
function rawRows(): { id: string; type: string; name: string; tag: string | null }[] {
  const db = openSqlite(filename, { readonly: true });
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

function tally(outcomes: CreateOutcome[]): Record<CreateOutcome, number> {
  const counts = { created: 0, replayed: 0, conflict: 0 };
  for (const outcome of outcomes) counts[outcome] += 1;
  return counts;
}

describe('create', () => {
  it('creates, then replays the same plant, and reports a different one as a conflict', async () => {
    const store = openStore();
    expect(await store.create({ id: 1n, name: 'Fern' })).toBe('created');
    expect(await store.create({ id: 1n, name: 'Fern' })).toBe('replayed');
    expect(await store.create({ id: 1n, name: 'Moss' })).toBe('conflict');
    expect(await store.create({ id: 1n, name: 'Fern', tag: 'indoor' })).toBe('conflict');
    expect(rawRows()).toEqual([{ id: '1', type: 'integer', name: 'Fern', tag: null }]);
  });

  it('treats a tag as part of the plant: same tag replays, missing or other tag conflicts', async () => {
    const store = openStore();
    expect(await store.create({ id: 2n, name: 'Rose', tag: 'outdoor' })).toBe('created');
    expect(await store.create({ id: 2n, name: 'Rose', tag: 'outdoor' })).toBe('replayed');
    expect(await store.create({ id: 2n, name: 'Rose' })).toBe('conflict');
    expect(await store.create({ id: 2n, name: 'Rose', tag: 'indoor' })).toBe('conflict');
    expect(rawRows()).toEqual([{ id: '2', type: 'integer', name: 'Rose', tag: 'outdoor' }]);
  });

  it('gives exactly one "created" to 20 concurrent creates of one id with different names', async () => {
    const store = openStore();
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.create({ id: 42n, name: `Plant ${i}` })),
    );
    expect(outcomes[0]).toBe('created');
    expect(tally(outcomes)).toEqual({ created: 1, replayed: 0, conflict: 19 });
    expect(rawRows()).toEqual([{ id: '42', type: 'integer', name: 'Plant 0', tag: null }]);
  });

  it('replays duplicates of the same plant inside one batch', async () => {
    const store = openStore();
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, () => store.create({ id: 7n, name: 'Ivy', tag: 'climber' })),
    );
    expect(tally(outcomes)).toEqual({ created: 1, replayed: 4, conflict: 0 });
    expect(store.stats().commits).toBe(1);
  });

  it('does not fail batch-mates when one row is rejected', async () => {
    const store = openStore();
    const results = await Promise.allSettled([
      store.create({ id: 1n, name: 'Fern' }),
      store.create({ id: 2n ** 63n, name: 'Too big' }),
      store.create({ id: 3n, name: null } as unknown as NewPlant),
      store.create({ id: 4n, name: 'Moss' }),
    ]);
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
      'fulfilled',
    ]);
    expect(results[1]).toMatchObject({ reason: expect.any(RangeError) });
    expect(results[2]).toMatchObject({ reason: { code: 'SQLITE_CONSTRAINT_NOTNULL' } });
    expect(store.stats().commits).toBe(1);
    expect(rawRows().map((r) => r.id)).toEqual(['1', '4']);
  });

  it('commits the creates of one event-loop turn in one transaction, at most maxBatchSize each', async () => {
    const store = openStore({ maxBatchSize: 10 });
    const ids = Array.from({ length: 25 }, (_, i) => BigInt(i + 1));
    const outcomes = await Promise.all(ids.map((id) => store.create({ id, name: `P${id}` })));
    expect(tally(outcomes)).toEqual({ created: 25, replayed: 0, conflict: 0 });
    expect(store.stats()).toEqual({ commits: 3, creates: 25 });
    expect(await store.create({ id: 100n, name: 'Later' })).toBe('created');
    expect(store.stats()).toEqual({ commits: 4, creates: 26 });
    expect(rawRows()).toHaveLength(26);
  });

  it('rejects with StoreUnavailableError while another connection holds the write lock', async () => {
    const store = openStore({ busyTimeoutMs: 50 });
    const other = openSqlite(filename);
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

describe('get', () => {
  it('returns the plant, with tag only when it has one, or undefined', async () => {
    const store = openStore();
    await store.create({ id: 1n, name: 'Fern' });
    await store.create({ id: 2n, name: 'Rose', tag: 'outdoor' });
    const fern = await store.get(1n);
    expect(fern).toStrictEqual({ id: 1n, name: 'Fern' });
    expect(fern !== undefined && 'tag' in fern).toBe(false);
    expect(await store.get(2n)).toStrictEqual({ id: 2n, name: 'Rose', tag: 'outdoor' });
    expect(await store.get(3n)).toBeUndefined();
  });
});

describe('persistence', () => {
  it('round-trips extreme int64 ids exactly across close and reopen', async () => {
    const ids = [-(2n ** 63n), 2n ** 63n - 1n, 2n ** 53n + 1n, -(2n ** 53n) - 1n, 0n, -1n];
    const first = openStore();
    for (const id of ids) expect(await first.create({ id, name: `Plant ${id}` })).toBe('created');
    await first.close();

    const second = openStore();
    for (const id of ids) {
      expect(await second.get(id)).toStrictEqual({ id, name: `Plant ${id}` });
      expect(await second.create({ id, name: `Plant ${id}` })).toBe('replayed');
    }
    // Neighbours of the big ids are not confused with them (no rounding through doubles).
    expect(await second.get(2n ** 53n)).toBeUndefined();
    expect(await second.get(2n ** 63n - 2n)).toBeUndefined();
    expect(rawRows().map((r) => [r.id, r.type])).toEqual(
      [...ids].sort((a, b) => (a < b ? -1 : 1)).map((id) => [String(id), 'integer']),
    );
  });

  it('keeps plants across reopen', async () => {
    const first = openStore();
    await first.create({ id: 5n, name: 'Cactus', tag: 'desert' });
    await first.close();
    const second = openStore();
    expect(await second.get(5n)).toStrictEqual({ id: 5n, name: 'Cactus', tag: 'desert' });
    expect(await second.create({ id: 5n, name: 'Cactus' })).toBe('conflict');
  });

  it('creates the parent directory of the file', async () => {
    filename = path.join(dir, 'nested', 'deeper', 'plants.db');
    const store = openStore();
    expect(await store.create({ id: 1n, name: 'Fern' })).toBe('created');
    expect(fs.existsSync(filename)).toBe(true);
  });

  it('refuses a file whose schema is newer than this code', () => {
    const db = openSqlite(filename);
    db.pragma('user_version = 99');
    db.close();
    expect(() => openStore()).toThrow(SchemaTooNewError);
    expect(() => openStore()).toThrow(/version 99/);
  });

  it('refuses an in-memory database', () => {
    expect(() => openStore({ filename: ':memory:' })).toThrow(/needs a database file/);
  });
});

describe('connection settings', () => {
  it('uses WAL and synchronous=FULL by default, also when reopening a WAL file', async () => {
    const first = openStore({ busyTimeoutMs: 1234 });
    expect(first.settings()).toEqual({
      journalMode: 'wal',
      synchronous: 2,
      busyTimeoutMs: 1234,
      schemaVersion: MIGRATIONS.length,
    });
    await first.close();

    // A plain better-sqlite3 connection to a WAL file silently gets NORMAL (1): the trap
    // the store avoids by setting synchronous explicitly on every open.
    const plain = openSqlite(filename);
    expect(plain.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(plain.pragma('synchronous', { simple: true })).toBe(1);
    plain.close();

    const second = openStore();
    expect(second.settings()).toMatchObject({ journalMode: 'wal', synchronous: 2 });
  });

  it('uses synchronous=NORMAL when asked for normal durability', () => {
    expect(openStore({ durability: 'normal' }).settings().synchronous).toBe(1);
  });

  it('rejects invalid options', () => {
    expect(() => openStore({ busyTimeoutMs: -1 })).toThrow(/busyTimeoutMs/);
    expect(() => openStore({ maxBatchSize: 0 })).toThrow(/maxBatchSize/);
    expect(() => openStore({ durability: 'extra' as 'full' })).toThrow(/durability/);
  });
});

describe('ping and close', () => {
  it('pings an open store', async () => {
    await expect(openStore().ping()).resolves.toBeUndefined();
  });

  it('commits creates still queued when close is called', async () => {
    const store = openStore();
    const pending = store.create({ id: 9n, name: 'Late' });
    await store.close();
    expect(await pending).toBe('created');
    expect(rawRows().map((r) => r.name)).toEqual(['Late']);
  });

  it('rejects every call after close with StoreUnavailableError; a second close resolves', async () => {
    const store = openStore();
    await store.close();
    await expect(store.create({ id: 1n, name: 'Fern' })).rejects.toThrow(StoreUnavailableError);
    await expect(store.get(1n)).rejects.toThrow(StoreUnavailableError);
    await expect(store.ping()).rejects.toThrow(/closed/);
    await expect(store.close()).resolves.toBeUndefined();
    expect(rawRows()).toEqual([]);
  });
});
