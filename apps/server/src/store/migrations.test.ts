import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MIGRATIONS,
  type Migration,
  migrate,
  SchemaTooNewError,
  schemaVersion,
} from './migrations.ts';

let dir: string;
let db: Database.Database;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plant-migrations-'));
  db = new Database(path.join(dir, 'plants.db'));
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
  it('creates the plants table on a new file and records the version', () => {
    expect(migrate(db)).toEqual({ from: 0, to: MIGRATIONS.length, applied: [1] });
    expect(schemaVersion(db)).toBe(1);
    const columns = db
      .prepare<[], { name: string; type: string; notnull: number; pk: number }>(
        'SELECT name, type, "notnull", pk FROM pragma_table_info(\'plants\')',
      )
      .all();
    expect(columns).toEqual([
      { name: 'id', type: 'INTEGER', notnull: 0, pk: 1 },
      { name: 'name', type: 'TEXT', notnull: 1, pk: 0 },
      { name: 'tag', type: 'TEXT', notnull: 0, pk: 0 },
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
    expect(migrate(db)).toEqual({ from: 1, to: 1, applied: [] });
    db.close();
    db = new Database(path.join(dir, 'plants.db'));
    expect(migrate(db)).toEqual({ from: 1, to: 1, applied: [] });
    expect(db.prepare('SELECT count(*) AS n FROM plants').get()).toEqual({ n: 1 });
  });

  it('runs each migration exactly once', () => {
    const counting: Migration[] = [
      { version: 1, name: 'log table', sql: 'CREATE TABLE log (entry TEXT NOT NULL)' },
      { version: 2, name: 'first entry', sql: "INSERT INTO log VALUES ('v2 ran')" },
    ];
    expect(migrate(db, counting.slice(0, 1)).applied).toEqual([1]);
    expect(migrate(db, counting).applied).toEqual([2]);
    expect(migrate(db, counting).applied).toEqual([]);
    expect(db.prepare('SELECT entry FROM log').all()).toEqual([{ entry: 'v2 ran' }]);
  });

  it('refuses a database migrated by newer code, and leaves it alone', () => {
    db.pragma('user_version = 7');
    expect(() => migrate(db)).toThrow(SchemaTooNewError);
    expect(() => migrate(db)).toThrow(/version 7.*up to 1/);
    expect(schemaVersion(db)).toBe(7);
    expect(tableNames()).toEqual([]);
  });

  it('rolls back every migration of the run when one fails', () => {
    const broken: Migration[] = [
      ...MIGRATIONS,
      { version: 2, name: 'broken', sql: 'INSERT INTO no_such_table VALUES (1)' },
    ];
    expect(() => migrate(db, broken)).toThrow(/no such table/);
    expect(schemaVersion(db)).toBe(0);
    expect(tableNames()).toEqual([]);
  });

  it('rejects a migration list whose versions are not 1, 2, 3, ...', () => {
    const gap: Migration[] = [...MIGRATIONS, { version: 3, name: 'skips 2', sql: 'SELECT 1' }];
    expect(() => migrate(db, gap)).toThrow(/version 3; expected 2/);
    expect(schemaVersion(db)).toBe(0);
  });
});
