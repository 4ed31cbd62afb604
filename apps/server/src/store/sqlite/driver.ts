import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * The better-sqlite3 major that works on this Node: 12 on Node 20 (13 needs Node 22 and
 * crashes on 20), 13 from Node 22 on (12's Statement destructor aborts Node ≥ 24.19 when a
 * statement is collected, at exit or by an idle GC). 13 is an optional dependency under the
 * alias `better-sqlite3-13`, which pnpm installs only where its `engines` allow.
 */
export const DRIVER_PACKAGE =
  Number(process.versions.node.split('.')[0]) >= 22 ? 'better-sqlite3-13' : 'better-sqlite3';
const Driver = createRequire(import.meta.url)(DRIVER_PACKAGE) as typeof BetterSqlite3;

/** Opens a SQLite database with the driver that suits this Node. */
export function openSqlite(
  filename: string,
  options?: BetterSqlite3.Options,
): BetterSqlite3.Database {
  return new Driver(filename, options);
}

/** The driver's error class (its `code` is SQLite's extended result code). */
export const SqliteError: typeof BetterSqlite3.SqliteError = Driver.SqliteError;
