import type { Pool } from 'pg';
import { checkMigrations, type Migration, type MigrationReport } from '../migration-list.ts';

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
    // Only a token's SHA-256 (hex) is kept.
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
  {
    version: 3,
    name: 'create rate limits',
    // Counts, not data: not in the WAL.
    sql: `
      CREATE UNLOGGED TABLE rate_limits (
        key TEXT PRIMARY KEY,
        points BIGINT NOT NULL,
        ends_at BIGINT NOT NULL
      );
    `,
  },
];

/** One transaction under an advisory lock: instances starting at once migrate one by one. */
export async function migratePostgres(
  pool: Pool,
  migrations: readonly Migration[] = POSTGRES_MIGRATIONS,
): Promise<MigrationReport> {
  const client = await pool.connect();
  // A checked-out client has no pool listener: the failing query reports a lost connection.
  const ignore = () => undefined;
  client.on('error', ignore);
  let committed = false;
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(7283514092001)');
    await client.query(`
      CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )
    `);
    const { rows } = await client.query<{ version: number }>(
      'SELECT version FROM schema_migrations',
    );
    const applied = new Set(rows.map((row) => row.version));
    const from = Math.max(0, ...applied);
    checkMigrations(migrations, from);
    const pending = migrations.filter((migration) => !applied.has(migration.version));
    for (const migration of pending) {
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
    }
    await client.query('COMMIT');
    committed = true;
    return { from, to: migrations.length, applied: pending.map((migration) => migration.version) };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.off('error', ignore);
    client.release(!committed);
  }
}
