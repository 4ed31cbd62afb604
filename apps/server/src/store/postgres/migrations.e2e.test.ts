import { FIELD_LIST } from '@plant-store/schema';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { usePostgresStores } from '../../../test/support/postgres-stores.ts';
import { COLUMN_TYPES } from '../plant-store.ts';
import { migratePostgres, POSTGRES_MIGRATIONS } from './migrations.ts';

const db = usePostgresStores();
const { open, sql } = db;

/** The versions recorded in `schema_migrations`, ascending; empty when the table is missing. */
async function appliedPostgresVersions(pool: pg.Pool): Promise<number[]> {
  const { rows } = await pool
    .query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version')
    .catch((error: unknown) => {
      if ((error as { code?: unknown }).code === '42P01') return { rows: [] }; // undefined_table
      throw error;
    });
  return rows.map((row) => row.version);
}

describe('schema and migrations', () => {
  it('creates the plants table with the same shape as SQLite, ids as BIGINT', async () => {
    const store = await open();
    await store.create({ id: 2n ** 63n - 1n, name: 'Max' });
    const columns = await sql(`
      SELECT column_name, data_type, is_nullable, column_default
      FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = 'plants' ORDER BY ordinal_position`);
    // A field's column (plant-fields.ts, COLUMN_TYPES) comes after created_at once a migration
    // adds it: compared by name.
    const isField = (row: { column_name?: unknown }) =>
      FIELD_LIST.some((field) => field.name === row.column_name);
    expect(
      FIELD_LIST.map((field) => columns.find((row) => row.column_name === field.name)),
    ).toEqual(
      FIELD_LIST.map((field) => ({
        column_name: field.name,
        data_type: COLUMN_TYPES[field.type].postgres,
        is_nullable: field.required ? 'NO' : 'YES',
        column_default: null,
      })),
    );
    expect(columns.filter((row) => !isField(row))).toEqual([
      { column_name: 'id', data_type: 'bigint', is_nullable: 'NO', column_default: null },
      {
        column_name: 'created_at',
        data_type: 'timestamp with time zone',
        is_nullable: 'NO',
        column_default: 'now()',
      },
    ]);
    const [primaryKey] = await sql(`
      SELECT a.attname AS column FROM pg_index i
      JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
      WHERE i.indrelid = 'plants'::regclass AND i.indisprimary`);
    expect(primaryKey).toEqual({ column: 'id' });
    expect(await sql('SELECT id::text AS id, pg_typeof(id)::text AS type FROM plants')).toEqual([
      { id: '9223372036854775807', type: 'bigint' },
    ]);
  });

  it('applies the migrations once when eight instances migrate a new database at once', async () => {
    const pools = Array.from(
      { length: 8 },
      () => new pg.Pool({ connectionString: db.schema().url, max: 1 }),
    );
    try {
      const reports = await Promise.all(pools.map((pool) => migratePostgres(pool)));
      const latest = POSTGRES_MIGRATIONS.length;
      expect(reports.filter((r) => r.applied.length > 0)).toEqual([
        { from: 0, to: latest, applied: POSTGRES_MIGRATIONS.map((_, index) => index + 1) },
      ]);
      expect(reports.filter((r) => r.applied.length === 0)).toHaveLength(7);
      expect(await appliedPostgresVersions(pools[0] as pg.Pool)).toEqual(
        POSTGRES_MIGRATIONS.map((_, index) => index + 1),
      );
      expect(await sql('SELECT version, name FROM schema_migrations ORDER BY version')).toEqual(
        POSTGRES_MIGRATIONS.map(({ name }, index) => ({ version: index + 1, name })),
      );
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it('reports no versions for a database never migrated', async () => {
    const pool = new pg.Pool({ connectionString: db.schema().url, max: 1 });
    try {
      expect(await appliedPostgresVersions(pool)).toEqual([]);
    } finally {
      await pool.end();
    }
  });

  it('refuses a database whose schema is newer than this code, changing nothing', async () => {
    await (await open()).close();
    await sql(`INSERT INTO schema_migrations (version, name) VALUES (99, 'from the future')`);
    await expect(open()).rejects.toThrow(/schema is at version 99/);
  });

  it('rolls a failing migration back entirely', async () => {
    const pool = new pg.Pool({ connectionString: db.schema().url, max: 1 });
    try {
      const broken = [
        ...POSTGRES_MIGRATIONS,
        { name: 'broken', sql: 'CREATE TABLE x (); SELECT 1/0' },
      ];
      await expect(migratePostgres(pool, broken)).rejects.toThrow(/division by zero/);
      expect(await appliedPostgresVersions(pool)).toEqual([]);
      expect(await sql(`SELECT to_regclass('plants')::text AS plants`)).toEqual([{ plants: null }]);
    } finally {
      await pool.end();
    }
  });
});
