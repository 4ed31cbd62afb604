import { rmSync } from 'node:fs';
import { createPrivateFile } from './private-files.ts';
import { openSqlite } from './sqlite/driver.ts';
import { schemaVersion } from './sqlite/migrations.ts';

/**
 * `plant-store backup <file>`: copies the SQLite database `source` into the new file `target`
 * (mode 0600) while servers keep writing to it: SQLite's online backup (better-sqlite3) copies
 * every page in one step, inside one read transaction, so the copy is consistent and holds
 * every commit made before it began, WAL included. The source is opened read-only, unmigrated.
 */
export async function backupSqlite(source: string, target: string) {
  const db = openSqlite(source, { readonly: true, fileMustExist: true });
  try {
    try {
      createPrivateFile(target, { exclusive: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      throw new Error(`${target} exists: a backup goes to a new file`);
    }
    try {
      // All pages in the step after the first (better-sqlite3's first copies none): copied in
      // steps, a database written to between them would start over at each step.
      const { totalPages } = await db.backup(target, { progress: () => 0x7fffffff });
      return { pages: totalPages, schemaVersion: schemaVersion(db) };
    } catch (error) {
      rmSync(target, { force: true });
      throw error;
    }
  } finally {
    db.close();
  }
}
