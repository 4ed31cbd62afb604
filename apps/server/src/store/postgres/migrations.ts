import type { Pool } from 'pg';
import { checkMigrations, type Migration } from '../migration-list.ts';

/** The PostgreSQL schema, oldest first. Append new versions; never edit a released one. */
export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
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
export async function migratePostgres(pool: Pool, migrations = POSTGRES_MIGRATIONS) {
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
      'SELECT coalesce(max(version), 0) AS version FROM schema_migrations',
    );
    const from = rows[0]?.version ?? 0;
    checkMigrations(migrations, from);
    const applied = migrations.slice(from).map((_, index) => from + index + 1);
    for (const version of applied) {
      const { name, sql } = migrations[version - 1] as Migration;
      await client.query(sql);
      const record = 'INSERT INTO schema_migrations (version, name) VALUES ($1, $2)';
      await client.query(record, [version, name]);
    }
    await client.query('COMMIT');
    committed = true;
    return { from, to: migrations.length, applied };
  } finally {
    client.off('error', ignore);
    client.release(!committed); // a connection ended uncommitted rolls its transaction back
  }
}
