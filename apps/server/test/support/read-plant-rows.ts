import { openSqlite } from '../../src/store/sqlite/driver.ts';

/** A row of the plants table as stored (ids exact, `tag` NULL when absent). */
export interface PlantRow {
  id: bigint;
  name: string;
  tag: string | null;
}

/**
 * Every stored plant of a SQLite file, ordered by id, read through a separate read-only
 * connection: what tests compare the API's answers with.
 *
 * @example
 * expect(readPlantRows(server.databaseFile)).toEqual([{ id: 1n, name: 'Fern', tag: null }]);
 */
export function readPlantRows(file: string): PlantRow[] {
  const db = openSqlite(file, { readonly: true });
  try {
    return db
      .prepare('SELECT id, name, tag FROM plants ORDER BY id')
      .safeIntegers()
      .all() as PlantRow[];
  } finally {
    db.close();
  }
}
