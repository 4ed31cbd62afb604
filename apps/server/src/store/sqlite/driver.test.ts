import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { DRIVER_PACKAGE, openSqlite, SqliteError } from './driver.ts';

describe('the SQLite driver', () => {
  it('is better-sqlite3 before Node 22 and its 13 line from Node 22 on', () => {
    const major = Number(process.versions.node.split('.')[0]);
    expect(DRIVER_PACKAGE).toBe(major >= 22 ? 'better-sqlite3-13' : 'better-sqlite3');
  });

  it('opens a working connection of that package, whose errors are its SqliteError', () => {
    const Driver = createRequire(import.meta.url)(DRIVER_PACKAGE);
    const db = openSqlite(':memory:');
    try {
      expect(db).toBeInstanceOf(Driver);
      expect(db.prepare('SELECT 6 * 7 AS answer').get()).toEqual({ answer: 42 });
      let thrown: unknown;
      try {
        db.exec('SELEKT 1');
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(SqliteError);
      expect((thrown as { code?: string }).code).toBe('SQLITE_ERROR');
    } finally {
      db.close();
    }
  });
});
