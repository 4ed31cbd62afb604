import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StartupError } from '../../config.ts';
import { openSqlite } from './driver.ts';
import { openDatabase } from './open-database.ts';

const folder = mkdtempSync(join(tmpdir(), 'plant-open-database-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('openDatabase', () => {
  // Switching to WAL once such a writer lets go waits on the real clock: open-database.e2e.test.ts.
  it('gives up with the one-line start-up error when another writer holds on past the busy timeout', () => {
    // A second connection creating the same new file, in rollback-journal mode, holding its
    // write lock; a busy timeout of 0 gives up at the first SQLITE_BUSY, without a wait.
    const filename = join(folder, 'held.db');
    const writer = openSqlite(filename);
    writer.exec('BEGIN IMMEDIATE; CREATE TABLE other (x);');
    try {
      const opening = () => openDatabase(filename, { busyTimeoutMs: 0 });
      expect(opening).toThrow(StartupError);
      expect(opening).toThrow(`Cannot open the SQLite database ${filename}: SQLITE_BUSY`);
    } finally {
      writer.exec('ROLLBACK');
      writer.close();
    }
  });

  it('says so when the path is a directory, and which file to set', () => {
    expect(() => openDatabase(folder)).toThrow(
      new StartupError(
        `Cannot open the SQLite database ${folder}: it is a directory. Set DATABASE_URL to a file, e.g. ${join(folder, 'plants.db')}.`,
      ),
    );
  });

  it('refuses an in-memory database: the store is a file', () => {
    expect(() => openDatabase(':memory:')).toThrow(/needs a database file/);
  });
});
