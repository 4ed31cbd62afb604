import { openSqlite } from '../../src/store/sqlite/driver.ts';

/**
 * `PRAGMA integrity_check` of a SQLite file, through a connection of its own that may write, as
 * a restarted server's would: a WAL left behind by a crash is recovered first.
 *
 * @example
 * expect(integrityCheck(file)).toEqual([{ integrity_check: 'ok' }]);
 */
export function integrityCheck(file: string): unknown[] {
  const db = openSqlite(file);
  try {
    return db.pragma('integrity_check', { simple: false }) as unknown[];
  } finally {
    db.close();
  }
}
