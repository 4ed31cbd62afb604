import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import {
  createSqliteStore,
  type SqliteStore,
  type SqliteStoreOptions,
} from '../../src/store/sqlite/sqlite-store.ts';

/** What `tempSqliteStores` gives a test file. */
export interface TempSqliteStores {
  /** This test's own directory. */
  readonly dir: string;
  /** `plants.db` in it (not created until a store opens it). */
  readonly filename: string;
  /** Opens a store on `filename` (or `options.filename`), closed after the test. */
  open(options?: Partial<SqliteStoreOptions>): SqliteStore;
}

/**
 * Registers, for the calling test file, a fresh temporary directory per test and the closing
 * of every store opened through `open` (then the directory's removal) after it.
 *
 * @example
 * const temp = tempSqliteStores('plant-sqlite-');
 * it('creates', async () => expect(await temp.open().create({ id: 1n, name: 'Fern' })).toBe('created'));
 */
export function tempSqliteStores(prefix: string): TempSqliteStores {
  let dir = '';
  const opened: SqliteStore[] = [];
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      return dir;
    },
    get filename() {
      return path.join(dir, 'plants.db');
    },
    open(options = {}) {
      const store = createSqliteStore({ filename: path.join(dir, 'plants.db'), ...options });
      opened.push(store);
      return store;
    },
  };
}
