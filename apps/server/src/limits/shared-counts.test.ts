import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../store/sqlite/open-database.ts';
import {
  type CountStore,
  databaseCounts,
  LEASE_SHARE,
  SharedCounts,
  SWEEP_EVERY_MS,
  SWEEP_SLICE,
} from './shared-counts.ts';

// The counts on a real SQLite file; two connections to it stand for two processes serving it
// (test/e2e/rate-limit-sqlite.test.ts runs real processes).

let folder: string;
const opened: BetterSqlite3.Database[] = [];

beforeEach(() => {
  // Windows, leases and sweeps read Date alone: frozen, and moved on by the tests that need it.
  vi.useFakeTimers({ toFake: ['Date'] });
  folder = mkdtempSync(join(tmpdir(), 'plant-store-counts-'));
});
afterEach(() => {
  vi.useRealTimers();
  for (const db of opened.splice(0)) db.close();
  rmSync(folder, { recursive: true, force: true });
});

function connect(): { db: BetterSqlite3.Database; counts: CountStore } {
  const filename = join(folder, 'plants.db');
  const db = openDatabase(filename);
  opened.push(db);
  return { db, counts: databaseCounts({ kind: 'sqlite', filename, db, close: async () => {} }) };
}

/** The store, counting the batches it is given. */
function counted(store: CountStore) {
  const batches: number[] = [];
  const wrapped: CountStore = {
    add: (takes, now) => {
      batches.push(takes.length);
      return store.add(takes, now);
    },
    sweepSlice: (after, before) => store.sweepSlice(after, before),
    close: () => store.close?.(),
  };
  return { store: wrapped, batches };
}

describe('SharedCounts on the database file', () => {
  it('shares one exact limit between two connections, one batch per turn, never more than the limit', async () => {
    const a = counted(connect().counts);
    const b = counted(connect().counts);
    const [first, second] = [new SharedCounts(a.store), new SharedCounts(b.store)];
    const decisions = await Promise.all(
      Array.from({ length: 60 }, (_, i) => (i % 2 ? first : second).consume('k', 25, 60_000)),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(25);
    // 30 decisions each, in one batch each; later ones are refused from memory.
    expect(a.batches).toEqual([1]);
    expect(b.batches).toEqual([1]);
    expect(
      decisions
        .filter((d) => d.allowed)
        .map((d) => d.remaining)
        .sort((x, y) => x - y),
    ).toEqual(Array.from({ length: 25 }, (_, i) => i));
    const spent = await first.consume('k', 25, 60_000);
    expect(spent).toMatchObject({ allowed: false, remaining: 0 });
    expect(a.batches).toEqual([1]); // known spent: no store
    first.close();
    second.close();
  });

  it('updates one row per key in place, and writes no fsync for it', async () => {
    const { db, counts } = connect();
    const shared = new SharedCounts(counts);
    for (let i = 0; i < 50; i++) await shared.consume(`key-${i % 5}`, 1000, 60_000);
    expect(db.prepare('SELECT count(*) AS n FROM rate_limits').get()).toEqual({ n: 5 });
    expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL again for the plants
    shared.close();
  });

  it('counts in memory while the table cannot be written, and never fails a decision', async () => {
    const { db, counts } = connect();
    const failures: unknown[] = [];
    const shared = new SharedCounts(counts, (error) => failures.push(error));
    db.exec('ALTER TABLE rate_limits RENAME TO rate_limits_moved');
    const decisions = await Promise.all(
      Array.from({ length: 5 }, () => shared.consume('k', 3, 60_000)),
    );
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false]);
    expect(failures.length).toBeGreaterThanOrEqual(1);
    db.exec('ALTER TABLE rate_limits_moved RENAME TO rate_limits');
    expect((await shared.consume('other', 3, 60_000)).remaining).toBe(2);
    shared.close();
  });

  it('leases ahead for a busy key: few writes, and two processes never pass the limit together', async () => {
    const a = counted(connect().counts);
    const b = counted(connect().counts);
    const [first, second] = [new SharedCounts(a.store), new SharedCounts(b.store)];
    let allowed = 0;
    // 1,000 decisions a second for 4 s, alternating, against 2,000 a minute.
    for (let i = 0; i < 4000; i++) {
      vi.advanceTimersByTime(1);
      if ((await (i % 2 ? first : second).consume('busy', 2000, 60_000)).allowed) allowed += 1;
    }
    const writes = a.batches.length + b.batches.length;
    console.log(
      `4,000 decisions at 1,000/s, two processes, limit 2,000: ${allowed} allowed, ${writes} batches`,
    );
    // Exactly: the points of a lease that lapsed unused are given back.
    expect(allowed).toBe(2000);
    expect(writes).toBeLessThan(400);
    first.close();
    second.close();
  });

  it('lets a burst split between two processes through whole: a lease left unused withholds at most a LEASE_SHARE-th of the limit', async () => {
    const [first, second] = [
      new SharedCounts(connect().counts),
      new SharedCounts(connect().counts),
    ];
    const allowed = { first: 0, second: 0 };
    // The first process is busy long enough to lease, then its clients stop; the second's go on.
    for (let i = 0; i < 26; i++) {
      vi.advanceTimersByTime(4); // 250 a second: a rate that leases
      if ((await first.consume('burst', 50, 1000)).allowed) allowed.first += 1;
    }
    for (let i = 0; i < 30; i++) {
      if ((await second.consume('burst', 50, 1000)).allowed) allowed.second += 1;
    }
    console.log(`a burst of 50 split between two processes: ${JSON.stringify(allowed)}`);
    expect(allowed.first).toBe(26);
    expect(allowed.first + allowed.second).toBeGreaterThanOrEqual(
      50 - Math.floor(50 / LEASE_SHARE),
    );
    expect(allowed.first + allowed.second).toBeLessThanOrEqual(50);
    first.close();
    second.close();
  });

  it('sweeps ended rows a slice per turn of the event loop, keeps live ones, gives the pages back', async () => {
    const { db, counts } = connect();
    expect(db.pragma('auto_vacuum', { simple: true })).toBe(2); // INCREMENTAL on a new file
    const now = Date.now();
    const insert = db.prepare('INSERT INTO rate_limits (key, points, ends_at) VALUES (?, 1, ?)');
    db.transaction(() => {
      for (let i = 0; i < 20_000; i++) {
        // One live row in ten; the others ended two sweep periods ago.
        insert.run(`f:198.51.${i}`, i % 10 === 0 ? now + 60_000 : now - 2 * SWEEP_EVERY_MS);
      }
    })();
    const pages = Number(db.pragma('page_count', { simple: true }));
    const shared = new SharedCounts(counts);
    let turns = 0;
    const tick = () => {
      turns += 1;
      if (sweeping) setImmediate(tick);
    };
    let sweeping = true;
    setImmediate(tick);
    const slices = await shared.sweep();
    sweeping = false;
    expect(db.prepare('SELECT count(*) AS n FROM rate_limits').get()).toEqual({ n: 2000 });
    // 20,000 keys: 10 slices of SWEEP_SLICE, then the vacuum's steps; a turn between each two.
    expect(slices).toBeGreaterThan(20_000 / SWEEP_SLICE);
    expect(turns).toBeGreaterThanOrEqual(slices - 1);
    expect(db.pragma('freelist_count', { simple: true })).toBe(0);
    expect(Number(db.pragma('page_count', { simple: true }))).toBeLessThan(pages / 2);
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    shared.close();
  });

  it('bounds the rows of an attacker rotating addresses: one per address, gone 3 sweep periods after its last use', async () => {
    const { db, counts } = connect();
    const shared = new SharedCounts(counts);
    const rows = () =>
      (db.prepare('SELECT count(*) AS n FROM rate_limits').get() as { n: number }).n;
    const perTenSeconds = 100;
    let most = 0;
    // 10 minutes of 10 new addresses a second, each refused twice; a sweep every minute.
    for (let step = 1; step <= 60; step++) {
      const addresses = Array.from(
        { length: perTenSeconds },
        (_, i) => `f:10.${step}.${i >> 8}.${i & 255}`,
      );
      await Promise.all(
        addresses.flatMap((key) => [key, key].map((k) => shared.consume(k, 30, 60_000))),
      );
      vi.advanceTimersByTime(10_000);
      if (step % 6 === 0) await shared.sweep();
      most = Math.max(most, rows());
    }
    // Window (60 s) + what a sweep keeps (60 s) + the time to the next sweep (60 s).
    const bound = perTenSeconds * ((60_000 + 2 * SWEEP_EVERY_MS) / 10_000);
    console.log(
      `rotating addresses, 10 new a second for 10 min: at most ${most} rows (bound ${bound})`,
    );
    expect(most).toBeLessThanOrEqual(bound);
    expect(most).toBeGreaterThan(perTenSeconds * 6); // a window's worth is kept, at least
    expect(db.prepare('SELECT max(points) AS p FROM rate_limits').get()).toEqual({ p: 2 });
    for (let minute = 0; minute < 3; minute++) {
      vi.advanceTimersByTime(SWEEP_EVERY_MS);
      await shared.sweep();
    }
    expect(rows()).toBe(0);
    shared.close();
  });
});
