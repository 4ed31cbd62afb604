import type { ClientBase, Pool } from 'pg';
import { checkMigrationList, type Migration, SchemaTooNewError } from '../migration-list.ts';

/** The PostgreSQL schema, oldest first. Append new versions; never edit a released one. */
export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'create plants',
    sql: `
      CREATE TABLE plants (
        id BIGINT PRIMARY KEY,
        name TEXT NOT NULL,
        tag TEXT,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
    `,
  },
  {
    version: 2,
    name: 'create tokens',
    // Managed bearer tokens (plant-store tokens …): only the SHA-256 (hex) of a token is kept.
    // A name is unique among tokens not revoked.
    sql: `
      CREATE TABLE tokens (
        id INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name TEXT NOT NULL,
        digest TEXT NOT NULL UNIQUE CHECK (length(digest) = 64),
        created_at TIMESTAMPTZ NOT NULL,
        expires_at TIMESTAMPTZ,
        revoked_at TIMESTAMPTZ
      );
      CREATE UNIQUE INDEX tokens_active_name ON tokens (name) WHERE revoked_at IS NULL;
    `,
  },
];

/** The transaction-level advisory lock that serialises migrations of all instances on one database. */
const MIGRATION_LOCK_KEY = '7283514092001';

/**
 * Brings the database to the latest of `migrations`, recorded one row per version in
 * `schema_migrations`, in one transaction that first takes an advisory lock: instances
 * starting at once migrate one after the other, and a failing migration changes nothing.
 * Throws SchemaTooNewError when the database has a version this code does not know.
 *
 * @example
 * await migratePostgres(pool); // { from: 0, to: 2, applied: [1, 2] }, then { from: 2, to: 2, applied: [] }
 */
export async function migratePostgres(
  pool: Pool,
  migrations: readonly Migration[] = POSTGRES_MIGRATIONS,
): Promise<{ from: number; to: number; applied: number[] }> {
  checkMigrationList(migrations);
  const client = await pool.connect();
  // A checked-out client has no pool listener: the failing query reports a lost connection.
  const ignore = () => undefined;
  client.on('error', ignore);
  try {
    await client.query('BEGIN');
    const report = await migrateInTransaction(client, migrations);
    await client.query('COMMIT');
    client.off('error', ignore);
    client.release();
    return report;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    client.off('error', ignore);
    client.release(true); // a client whose transaction failed is discarded, not reused
    throw error;
  }
}

/** The versions recorded in `schema_migrations`, ascending; empty when the table is missing. */
export async function appliedPostgresVersions(pool: Pool): Promise<number[]> {
  const { rows } = await pool
    .query<{ version: number }>(`SELECT version FROM schema_migrations ORDER BY version`)
    .catch((error: unknown) => {
      if ((error as { code?: unknown }).code === '42P01') return { rows: [] }; // undefined_table
      throw error;
    });
  return rows.map((row) => row.version);
}

async function migrateInTransaction(client: ClientBase, migrations: readonly Migration[]) {
  await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
  await client.query(`
    CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )
  `);
  const { rows } = await client.query<{ version: number }>(
    'SELECT version FROM schema_migrations ORDER BY version',
  );
  const applied = new Set(rows.map((row) => row.version));
  const from = rows.length === 0 ? 0 : Math.max(...applied);
  const latest = migrations.length;
  if (from > latest) {
    throw new SchemaTooNewError(
      `The database schema is at version ${from}, but this server only knows versions up to ${latest}; ` +
        'run a newer server or point it at another database.',
    );
  }
  const pending = migrations.filter((migration) => !applied.has(migration.version));
  for (const migration of pending) {
    await client.query(migration.sql);
    await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
      migration.version,
      migration.name,
    ]);
  }
  return { from, to: latest, applied: pending.map((migration) => migration.version) };
}
