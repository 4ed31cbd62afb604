import type { Database } from 'better-sqlite3';
import { checkMigrations, type Migration } from '../migration-list.ts';

/** The SQLite schema, oldest first. Append new versions; never edit a released one. */
export const MIGRATIONS: readonly Migration[] = [
  {
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
    name: 'create tokens',
    // Only a token's SHA-256 (hex) is kept; times are ISO-8601 UTC with milliseconds.
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
    name: 'create rate limits',
    sql: `
      CREATE TABLE rate_limits (
        key TEXT PRIMARY KEY,
        points INTEGER NOT NULL,
        ends_at INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;
    `,
  },
];

/** One IMMEDIATE transaction: two processes cannot both apply a migration. */
export function migrate(db: Database, migrations = MIGRATIONS) {
  return db
    .transaction(() => {
      const from = schemaVersion(db);
      checkMigrations(migrations, from);
      const applied = migrations.slice(from).map((migration, index) => {
        db.exec(migration.sql);
        db.pragma(`user_version = ${from + index + 1}`);
        return from + index + 1;
      });
      return { from, to: migrations.length, applied };
    })
    .immediate();
}

export function schemaVersion(db: Database): number {
  return Number(db.pragma('user_version', { simple: true }));
}
