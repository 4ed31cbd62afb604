import { describe, expect, it } from 'vitest';
import { StartupError } from '../config.ts';
import { checkMigrations, type Migration } from './migration-list.ts';
import { POSTGRES_MIGRATIONS } from './postgres/migrations.ts';
import { MIGRATIONS } from './sqlite/migrations.ts';

const two: Migration[] = [
  { name: 'one', sql: 'SELECT 1' },
  { name: 'two', sql: 'SELECT 2' },
];

describe('checkMigrations', () => {
  it('passes a database at any version this server knows, 0 (new) included', () => {
    for (const from of [0, 1, 2]) expect(() => checkMigrations(two, from)).not.toThrow();
  });

  it('refuses a database from a newer server, saying what to do', () => {
    expect(() => checkMigrations(two, 3)).toThrow(StartupError);
    expect(() => checkMigrations(two, 3)).toThrow(
      'The database schema is at version 3, but this server only knows versions up to 2; ' +
        'run a newer server or point it at another database.',
    );
  });
});

describe('the migration lists', () => {
  it.each([
    ['SQLite', MIGRATIONS],
    ['PostgreSQL', POSTGRES_MIGRATIONS],
  ])('%s: each named once, each with SQL', (_store, migrations) => {
    const names = migrations.map((migration) => migration.name);
    expect(new Set(names).size).toBe(names.length);
    for (const migration of migrations) expect(migration.sql.trim()).not.toBe('');
  });

  it('bring both stores to the same version, change by change', () => {
    expect(POSTGRES_MIGRATIONS.map((m) => m.name)).toEqual(MIGRATIONS.map((m) => m.name));
  });
});
