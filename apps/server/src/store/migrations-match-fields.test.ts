import { FIELD_LIST } from '@plant-store/schema';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { COLUMN_TYPES } from './plant-store.ts';
import { POSTGRES_MIGRATIONS } from './postgres/migrations.ts';
import { MIGRATIONS, migrate } from './sqlite/migrations.ts';

// The migrations are written by hand (a released one is never edited), so they are not derived
// from the field list (packages/schema/src/plant-fields.ts): they are checked against it here.

interface Column {
  readonly name: string;
  readonly type: string;
  readonly notNull: boolean;
}

/** The columns of `plants` besides `id` and `created_at`, by name. */
type Columns = ReadonlyMap<string, Column>;

const FIELDS_FILE = 'packages/schema/src/plant-fields.ts';

/**
 * What is wrong with `columns` for the field list, each problem naming the migrations file and
 * what to do; empty when every field has its column, of its type, NOT NULL when required.
 */
export function columnProblems(dialect: 'sqlite' | 'postgres', columns: Columns): string[] {
  const file = `apps/server/src/store/${dialect}/migrations.ts`;
  const list = dialect === 'sqlite' ? 'MIGRATIONS' : 'POSTGRES_MIGRATIONS';
  const append = `append a migration to ${list} in ${file} (never edit a released one)`;
  const problems: string[] = [];
  for (const field of FIELD_LIST) {
    const type = COLUMN_TYPES[field.type][dialect];
    const want = `${field.name} ${type.toUpperCase()}${field.required ? ' NOT NULL' : ''}`;
    const column = columns.get(field.name);
    if (column === undefined) {
      problems.push(
        `${file}: the field ${field.name} has no column: ${append}: ALTER TABLE plants ADD COLUMN ${want};`,
      );
    } else if (
      column.type.toLowerCase() !== type.toLowerCase() ||
      column.notNull !== field.required
    ) {
      const has = `${column.type}${column.notNull ? ' NOT NULL' : ''}`;
      problems.push(
        `${file}: the column ${field.name} is ${has}, the field (${field.type}) needs ${want}: ${append} that changes it`,
      );
    }
  }
  for (const name of columns.keys()) {
    if (!FIELD_LIST.some((field) => field.name === name)) {
      problems.push(
        `${file}: the column ${name} of plants has no field in ${FIELDS_FILE}: add the field there, or ${append} that drops the column`,
      );
    }
  }
  return problems;
}

const OTHER_COLUMNS = new Set(['id', 'created_at']);

/** The field columns SQLite has after MIGRATIONS, read from a new in-memory database. */
function sqliteColumns(): Columns {
  const db = new Database(':memory:');
  try {
    migrate(db, MIGRATIONS);
    const rows = db
      .prepare<[], { name: string; type: string; notnull: number }>(
        'SELECT name, type, "notnull" FROM pragma_table_info(\'plants\')',
      )
      .all();
    return new Map(
      rows
        .filter((row) => !OTHER_COLUMNS.has(row.name))
        .map((row) => [row.name, { name: row.name, type: row.type, notNull: row.notnull === 1 }]),
    );
  } finally {
    db.close();
  }
}

/**
 * The field columns POSTGRES_MIGRATIONS give `plants`, read from their SQL (the unit tier has no
 * PostgreSQL; postgres/migrations.e2e.test.ts reads the real ones): `CREATE TABLE plants (…)`,
 * then each `ALTER TABLE plants ADD COLUMN` / `DROP COLUMN`, in order.
 */
export function postgresColumns(sqls: readonly string[]): Columns {
  const columns = new Map<string, Column>();
  const definition =
    /^\s*(\w+)\s+([A-Za-z][A-Za-z ]*?)(?:\s+(?:NOT NULL|NULL|PRIMARY KEY|DEFAULT|CHECK|UNIQUE|REFERENCES)\b(.*))?$/i;
  const add = (text: string) => {
    const match = definition.exec(text);
    if (!match?.[1] || !match[2]) return;
    const name = match[1];
    if (OTHER_COLUMNS.has(name)) return;
    columns.set(name, { name, type: match[2], notNull: /\bNOT NULL\b/i.test(text) });
  };
  for (const sql of sqls) {
    const create = /CREATE TABLE plants \(([\s\S]*?)\n\s*\);/i.exec(sql);
    for (const line of create?.[1]?.split(/,\s*\n/) ?? []) add(line);
    for (const match of sql.matchAll(/ALTER TABLE plants\s+(ADD|DROP) COLUMN\s+([^;]*);/gi)) {
      const rest = (match[2] ?? '').replace(/^IF (NOT )?EXISTS\s+/i, '');
      if (match[1]?.toUpperCase() === 'DROP') columns.delete(rest.trim().split(/\s/)[0] ?? '');
      else add(rest);
    }
  }
  return columns;
}

describe('the migrations give every field of the contract its column', () => {
  it('SQLite (apps/server/src/store/sqlite/migrations.ts)', () => {
    expect(columnProblems('sqlite', sqliteColumns())).toEqual([]);
  });

  it('PostgreSQL (apps/server/src/store/postgres/migrations.ts)', () => {
    const sqls = POSTGRES_MIGRATIONS.map((migration) => migration.sql);
    expect(columnProblems('postgres', postgresColumns(sqls))).toEqual([]);
  });

  it('names the file and the migration to add when a field has no column', () => {
    const [field] = FIELD_LIST;
    if (field === undefined) throw new Error('no field');
    const sqls = POSTGRES_MIGRATIONS.map((migration) => migration.sql);
    sqls.push(`ALTER TABLE plants DROP COLUMN ${field.name};`);
    const type = COLUMN_TYPES[field.type].postgres.toUpperCase();
    expect(columnProblems('postgres', postgresColumns(sqls))).toContain(
      `apps/server/src/store/postgres/migrations.ts: the field ${field.name} has no column: append a migration to POSTGRES_MIGRATIONS in apps/server/src/store/postgres/migrations.ts (never edit a released one): ALTER TABLE plants ADD COLUMN ${field.name} ${type}${field.required ? ' NOT NULL' : ''};`,
    );
    const extra = new Map([['wheels', { name: 'wheels', type: 'TEXT', notNull: false }]]);
    expect(columnProblems('sqlite', new Map([...sqliteColumns(), ...extra]))).toContain(
      `apps/server/src/store/sqlite/migrations.ts: the column wheels of plants has no field in ${FIELDS_FILE}: add the field there, or append a migration to MIGRATIONS in apps/server/src/store/sqlite/migrations.ts (never edit a released one) that drops the column`,
    );
  });

  it('reads an added column from its ALTER TABLE', () => {
    const columns = postgresColumns([
      'CREATE TABLE plants (\n  id BIGINT PRIMARY KEY,\n  name TEXT NOT NULL,\n  created_at TIMESTAMPTZ NOT NULL DEFAULT now()\n);',
      'ALTER TABLE plants ADD COLUMN height BIGINT;',
    ]);
    expect([...columns.values()]).toEqual([
      { name: 'name', type: 'TEXT', notNull: true },
      { name: 'height', type: 'BIGINT', notNull: false },
    ]);
  });
});
