import type { Database } from 'better-sqlite3';
import { checkMigrationList, type Migration, SchemaTooNewError } from '../migration-list.ts';

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
];

/** What `migrate` did: the schema version before and after, and the versions it applied. */
export interface MigrationReport {
  readonly from: number;
  readonly to: number;
  readonly applied: readonly number[];
}

/**
 * Brings `db` to the latest version of `migrations`, tracked in `PRAGMA user_version`.
 * Runs in one IMMEDIATE transaction, so a failing migration changes nothing and two
 * processes opening the same file cannot both apply it. Applies nothing when the database
 * is already current; throws SchemaTooNewError when its version is newer than the list.
 *
 * @example
 * migrate(db); // { from: 0, to: 1, applied: [1] } on a new file, then { from: 1, to: 1, applied: [] }
 */
export function migrate(
  db: Database,
  migrations: readonly Migration[] = MIGRATIONS,
): MigrationReport {
  checkMigrationList(migrations);
  const latest = migrations.length;
  const run = db.transaction((): MigrationReport => {
    const from = schemaVersion(db);
    if (from > latest) {
      throw new SchemaTooNewError(
        `The database schema is at version ${from}, but this server only knows versions up to ${latest}; ` +
          'run a newer server or point it at another database.',
      );
    }
    const pending = migrations.slice(from);
    for (const migration of pending) {
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    }
    return { from, to: latest, applied: pending.map((m) => m.version) };
  });
  return run.immediate();
}

/** The schema version recorded in the database file (`PRAGMA user_version`); 0 when new. */
export function schemaVersion(db: Database): number {
  return Number(db.pragma('user_version', { simple: true }));
}
