import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * 13 crashes on Node 20; 12 aborts Node ≥ 24.19 when a statement is collected. 13 is an optional
 * dependency (alias `better-sqlite3-13`) that pnpm installs only where its `engines` allow.
 */
export const DRIVER_PACKAGE =
  Number(process.versions.node.split('.')[0]) >= 22 ? 'better-sqlite3-13' : 'better-sqlite3';
const Driver = createRequire(import.meta.url)(DRIVER_PACKAGE) as typeof BetterSqlite3;

export const openSqlite = (filename: string, options?: BetterSqlite3.Options) =>
  new Driver(filename, options);

export const SqliteError: typeof BetterSqlite3.SqliteError = Driver.SqliteError;
