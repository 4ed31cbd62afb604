import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StoreOpenError } from '../store/plant-store.ts';
import { openSqlite } from '../store/sqlite/driver.ts';
import {
  LIMITS_FILE_SUFFIX,
  type LimiterStore,
  limiterStoreFor,
  sqliteStore,
} from './limiter-store.ts';

// The SQLite limiter store on a real file; two stores on one file are two connections, as two
// processes serving the file have (test/e2e/rate-limit-sqlite.test.ts runs real processes).

let folder: string;
let file: string;
const stores: LimiterStore[] = [];

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'plant-store-limiter-'));
  file = join(folder, 'plants.db');
});
afterEach(async () => {
  vi.useRealTimers();
  for (const store of stores.splice(0)) await store.close();
  rmSync(folder, { recursive: true, force: true });
});

function open(databaseFile = file): LimiterStore {
  const store = sqliteStore(databaseFile);
  stores.push(store);
  return store;
}

/** What `consume` settled with: the state, and whether it was refused. */
async function consume(limiter: { consume(key: string): Promise<RateLimiterRes> }, key: string) {
  try {
    return { refused: false, state: await limiter.consume(key) };
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    return { refused: true, state: rejection };
  }
}

/** The rows of `table` in the side file, read on a connection of its own. */
function rows(table: string): { key: string; points: number }[] {
  const db = openSqlite(`${file}${LIMITS_FILE_SUFFIX}`, { readonly: true });
  try {
    return db.prepare(`SELECT key, points FROM ${table} ORDER BY key`).all() as {
      key: string;
      points: number;
    }[];
  } finally {
    db.close();
  }
}

describe('sqliteStore', () => {
  const shape = { keyPrefix: 'rate_limit_test', points: 3, duration: 60 };

  it('counts in a side file that every connection to it shares', async () => {
    const [a, b] = await Promise.all([open().limiter(shape), open().limiter(shape)]);
    expect((await consume(a, 'env#1')).state.remainingPoints).toBe(2);
    expect((await consume(b, 'env#1')).state.remainingPoints).toBe(1);
    expect((await consume(a, 'env#1')).state.remainingPoints).toBe(0);
    const refused = await consume(b, 'env#1');
    expect(refused.refused).toBe(true);
    expect(refused.state.msBeforeNext).toBeGreaterThan(0);
    expect(refused.state.msBeforeNext).toBeLessThanOrEqual(60_000);
    expect((await consume(a, 'env#2')).refused).toBe(false);
    expect(existsSync(`${file}${LIMITS_FILE_SUFFIX}`)).toBe(true);
    expect(existsSync(file)).toBe(false); // the database itself is not touched
    expect(rows('rate_limit_test')).toEqual([
      { key: 'rate_limit_test:env#1', points: 4 },
      { key: 'rate_limit_test:env#2', points: 1 },
    ]);
    const db = openSqlite(`${file}${LIMITS_FILE_SUFFIX}`, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });

  it('refuses a spent key from memory, without a write', async () => {
    const limiter = await open().limiter(shape);
    for (let i = 0; i < 3; i++) await consume(limiter, 'env#1');
    for (let i = 0; i < 5; i++) expect((await consume(limiter, 'env#1')).refused).toBe(true);
    expect(rows('rate_limit_test')).toEqual([{ key: 'rate_limit_test:env#1', points: 3 }]);
  });

  it('counts in memory, never fails a decision, while the side file cannot be written', async () => {
    const limiter = await open().limiter(shape);
    const other = openSqlite(`${file}${LIMITS_FILE_SUFFIX}`);
    other.exec('DROP TABLE rate_limit_test');
    other.close();
    const outcomes = [];
    for (let i = 0; i < 4; i++) outcomes.push((await consume(limiter, 'env#1')).refused);
    expect(outcomes).toEqual([false, false, false, true]);
  });

  it('deletes the rows of windows that ended an hour ago, every 5 minutes', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setInterval', 'clearInterval'] });
    const limiter = await open().limiter({ ...shape, duration: 1 });
    await consume(limiter, 'old');
    await vi.advanceTimersByTimeAsync(30 * 60_000);
    await consume(limiter, 'recent');
    expect(rows('rate_limit_test').map((row) => row.key)).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(35 * 60_000); // 'old' ended 65 min ago, 'recent' 35
    expect(rows('rate_limit_test').map((row) => row.key)).toEqual(['rate_limit_test:recent']);
  });

  it('refuses to start in one line naming the side file when it cannot be opened', () => {
    const missing = join(folder, 'no-such-folder', 'plants.db');
    expect(() => sqliteStore(missing)).toThrow(StoreOpenError);
    expect(() => sqliteStore(missing)).toThrow(
      `Cannot open the SQLite database ${missing}${LIMITS_FILE_SUFFIX}`,
    );
  });
});

describe('limiterStoreFor', () => {
  it('counts beside the SQLite file for a path or a file: URL', async () => {
    const outcomes = [];
    for (const url of [file, `file:${file}`]) {
      const store = limiterStoreFor(url);
      stores.push(store);
      const limiter = await store.limiter({ keyPrefix: 'rate_limit_url', points: 1, duration: 60 });
      outcomes.push((await consume(limiter, 'k')).refused);
    }
    expect(outcomes).toEqual([false, true]);
    expect(rows('rate_limit_url')).toEqual([{ key: 'rate_limit_url:k', points: 2 }]);
  });
});
