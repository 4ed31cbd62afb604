import { rmSync } from 'node:fs';
import { createPrivateFile } from './private-files.ts';
import { openSqlite } from './sqlite/driver.ts';
import { schemaVersion } from './sqlite/migrations.ts';

/**
 * `plant-store backup <file>`: copies the SQLite database `source` into the new file `target`
 * (mode 0600) while servers keep writing to it. better-sqlite3's online backup copies every
 * page in one step, inside one read transaction: a consistent snapshot holding every commit
 * made before it began, WAL included. The source is opened read-only and never migrated.
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
      const { totalPages } = await db.backup(target);
      return { pages: totalPages, schemaVersion: schemaVersion(db) };
    } catch (error) {
      rmSync(target, { force: true });
      throw error;
    }
  } finally {
    db.close();
  }
}
