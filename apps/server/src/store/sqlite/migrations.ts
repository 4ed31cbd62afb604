import type { Database } from 'better-sqlite3';
import { checkMigrations, type Migration, type MigrationReport } from '../migration-list.ts';

/** The SQLite schema, oldest first. Append new versions; never edit a released one. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'create plants',
    sql: `
      CREATE TABLE plants (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        tag TEXT,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
      ) STRICT;
    `,
  },
  {
    version: 2,
    name: 'create tokens',
    // Managed bearer tokens (plant-store tokens …): only the SHA-256 (hex) of a token is kept.
    // Times are ISO-8601 UTC with milliseconds. A name is unique among tokens not revoked.
    sql: `
      CREATE TABLE tokens (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        digest TEXT NOT NULL UNIQUE CHECK (length(digest) = 64),
        created_at TEXT NOT NULL,
        expires_at TEXT,
        revoked_at TEXT
      ) STRICT;
      CREATE UNIQUE INDEX tokens_active_name ON tokens (name) WHERE revoked_at IS NULL;
    `,
  },
  {
    version: 3,
    name: 'create rate limits',
    // The limiters' counts (limits/shared-counts.ts), one row per key updated in place.
    sql: `
      CREATE TABLE rate_limits (
        key TEXT PRIMARY KEY,
        points INTEGER NOT NULL,
        ends_at INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;
    `,
  },
];

/**
 * Brings `db` to the latest of `migrations`, tracked in `PRAGMA user_version`, in one IMMEDIATE
 * transaction: a failing migration changes nothing, and two processes cannot both apply one.
 */
export function migrate(
  db: Database,
  migrations: readonly Migration[] = MIGRATIONS,
): MigrationReport {
  return db
    .transaction((): MigrationReport => {
      const from = schemaVersion(db);
      checkMigrations(migrations, from);
      const pending = migrations.slice(from);
      for (const migration of pending) {
        db.exec(migration.sql);
        db.pragma(`user_version = ${migration.version}`);
      }
      return { from, to: migrations.length, applied: pending.map((m) => m.version) };
    })
    .immediate();
}

/** The schema version recorded in the database file (`PRAGMA user_version`); 0 when new. */
export function schemaVersion(db: Database): number {
  return Number(db.pragma('user_version', { simple: true }));
}
