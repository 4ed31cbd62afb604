import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import {
  describePlantStoreContract,
  type StoredRow,
} from '../../../test/support/plant-store-contract.ts';
import { PLANT_COLUMNS } from '../plant-store.ts';
import { openSqlite } from './driver.ts';
import { createSqliteStore } from './sqlite-store.ts';

describePlantStoreContract('SqliteStore', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plant-sqlite-contract-'));
  const filename = path.join(dir, 'plants.db');
  const readOnly = <T>(read: (db: Database.Database) => T): T => {
    const db = openSqlite(filename, { readonly: true });
    try {
      return read(db);
    } finally {
      db.close();
    }
  };
  return {
    open: async (options) => createSqliteStore({ filename, ...options }),
    rows: async () =>
      readOnly((db) =>
        db
          .prepare<[], StoredRow>(
            `SELECT ${PLANT_COLUMNS.replace('id', 'CAST(id AS TEXT) AS id')} FROM plants ORDER BY plants.id`,
          )
          .all(),
      ),
    columns: async () =>
      readOnly((db) =>
        db
          .prepare<[], { name: string }>("SELECT name FROM pragma_table_info('plants')")
          .all()
          .map((column) => column.name),
      ),
    schemaVersion: async () =>
      readOnly((db) => Number(db.pragma('user_version', { simple: true }))),
    dispose: async () => fs.rmSync(dir, { recursive: true, force: true }),
  };
});
