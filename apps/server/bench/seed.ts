import { openSqlite } from '../src/store/sqlite/driver.ts';
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import { seedId } from './ids.ts';

/**
 * Creates the SQLite store file `filename` (schema by the store's own migrations) holding
 * `count` plants with scattered ids (`seedId(0..count-1)`), written directly in one
 * transaction, and checkpoints the WAL so the file alone holds them.
 *
 * @example
 * seedSqlite('/tmp/seeded.db', 1_000_000);
 */
export async function seedSqlite(filename: string, count: number): Promise<void> {
  await createSqliteStore({ filename }).close();
  const db = openSqlite(filename);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    const insert = db.prepare('INSERT INTO plants (id, name, tag) VALUES (?, ?, ?)');
    db.transaction(() => {
      for (let n = 0; n < count; n++) {
        insert.run(seedId(n), `Seeded plant ${n}`, n % 2 === 0 ? 'seeded' : null);
      }
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

/**
 * Number of plants stored in a SQLite store file.
 *
 * @example
 * countSqliteRows('/tmp/seeded.db'); // 1_000_000
 */
export function countSqliteRows(filename: string): number {
  const db = openSqlite(filename, { readonly: true });
  try {
    const row = db.prepare('SELECT count(*) AS n FROM plants').get() as { n: number };
    return Number(row.n);
  } finally {
    db.close();
  }
}
