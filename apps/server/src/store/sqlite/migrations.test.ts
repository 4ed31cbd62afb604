import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PLANT_FIELDS } from '@plant-store/schema';
import type Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StartupError } from '../../config.ts';
import type { Migration } from '../migration-list.ts';
import { openSqlite } from './driver.ts';
import { MIGRATIONS, migrate, schemaVersion } from './migrations.ts';

let dir: string;
let db: Database.Database;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plant-migrations-'));
  db = openSqlite(path.join(dir, 'plants.db'));
});

afterEach(() => {
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function tableNames(): string[] {
  return db
    .prepare<[], { name: string }>(
      "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name",
    )
    .all()
    .map((row) => row.name);
}

describe('migrate', () => {
  it('creates the tables on a new file and records the version', () => {
    const latest = MIGRATIONS.length;
    expect(migrate(db)).toEqual({
      from: 0,
      to: latest,
      applied: MIGRATIONS.map((_, index) => index + 1),
    });
    expect(schemaVersion(db)).toBe(latest);
    const columns = db
      .prepare<[], { name: string; type: string; notnull: number; pk: number }>(
        'SELECT name, type, "notnull", pk FROM pragma_table_info(\'plants\')',
      )
      .all();
    // The fields' columns are checked against the contract in migrations-match-fields.test.ts.
    const fields = new Set<string>(PLANT_FIELDS);
    expect(columns.filter((column) => !fields.has(column.name))).toEqual([
      { name: 'id', type: 'INTEGER', notnull: 0, pk: 1 },
      { name: 'created_at', type: 'TEXT', notnull: 1, pk: 0 },
    ]);
  });

  it('fills created_at with an ISO-8601 UTC timestamp', () => {
    migrate(db);
    db.prepare("INSERT INTO plants (id, name) VALUES (1, 'Fern')").run();
    const row = db.prepare<[], { created_at: string }>('SELECT created_at FROM plants').get();
    expect(row?.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('applies nothing on a second run, even after reopening the file', () => {
    migrate(db);
    db.prepare("INSERT INTO plants (id, name) VALUES (1, 'Fern')").run();
    const latest = MIGRATIONS.length;
    expect(migrate(db)).toEqual({ from: latest, to: latest, applied: [] });
    db.close();
    db = openSqlite(path.join(dir, 'plants.db'));
    expect(migrate(db)).toEqual({ from: latest, to: latest, applied: [] });
    expect(db.prepare('SELECT count(*) AS n FROM plants').get()).toEqual({ n: 1 });
  });

  it('runs each migration exactly once', () => {
    const counting: Migration[] = [
      { name: 'log table', sql: 'CREATE TABLE log (entry TEXT NOT NULL)' },
      { name: 'first entry', sql: "INSERT INTO log VALUES ('v2 ran')" },
    ];
    expect(migrate(db, counting.slice(0, 1)).applied).toEqual([1]);
    expect(migrate(db, counting).applied).toEqual([2]);
    expect(migrate(db, counting).applied).toEqual([]);
    expect(db.prepare('SELECT entry FROM log').all()).toEqual([{ entry: 'v2 ran' }]);
  });

  it('refuses a database migrated by newer code, and leaves it alone', () => {
    db.pragma('user_version = 70');
    expect(() => migrate(db)).toThrow(StartupError);
    expect(() => migrate(db)).toThrow(new RegExp(`version 70.*up to ${MIGRATIONS.length}`));
    expect(schemaVersion(db)).toBe(70);
    expect(tableNames()).toEqual([]);
  });

  it('rolls back every migration of the run when one fails', () => {
    const broken: Migration[] = [
      ...MIGRATIONS,
      { name: 'broken', sql: 'INSERT INTO no_such_table VALUES (1)' },
    ];
    expect(() => migrate(db, broken)).toThrow(/no such table/);
    expect(schemaVersion(db)).toBe(0);
    expect(tableNames()).toEqual([]);
  });
});

describe('migration 2: tokens', () => {
  const insert = (name: string, digest: string, revokedAt: string | null = null) =>
    db
      .prepare('INSERT INTO tokens (name, digest, created_at, revoked_at) VALUES (?, ?, ?, ?)')
      .run(name, digest, '2030-01-01T00:00:00.000Z', revokedAt);

  it('keeps a name unique among tokens that are not revoked', () => {
    migrate(db);
    insert('acme', 'a'.repeat(64), '2030-01-02T00:00:00.000Z');
    insert('acme', 'b'.repeat(64));
    expect(() => insert('acme', 'c'.repeat(64))).toThrow(/UNIQUE constraint failed: tokens.name/);
    expect(() => insert('other', 'b'.repeat(64))).toThrow(
      /UNIQUE constraint failed: tokens.digest/,
    );
    expect(() => insert('short', 'abc')).toThrow(/CHECK constraint failed/);
  });
});
