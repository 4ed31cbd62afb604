import { type Plant, plantOf } from '@plant-store/schema';
import { PLANT_COLUMNS, type PlantRow as StoredRow } from '../../src/store/plant-store.ts';
import { openSqlite } from '../../src/store/sqlite/driver.ts';

/** A stored plant: its exact id and its Plant fields (a NULL column, an absent field). */
export type PlantRow = { id: bigint } & Plant;

/**
 * Every stored plant of a SQLite file, ordered by id, read through a separate read-only
 * connection: what tests compare the API's answers with.
 *
 * @example
 * expect(readPlantRows(server.databaseFile)).toEqual([{ id: 1n, name: 'Fern' }]);
 */
export function readPlantRows(file: string): PlantRow[] {
  const db = openSqlite(file, { readonly: true });
  try {
    return db
      .prepare<[], StoredRow>(`SELECT ${PLANT_COLUMNS} FROM plants ORDER BY id`)
      .safeIntegers()
      .all()
      .map((row) => ({ id: row.id, ...plantOf(row) }));
  } finally {
    db.close();
  }
}
