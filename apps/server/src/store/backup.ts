import { rmSync } from 'node:fs';
import { createPrivateFile } from './private-files.ts';
import { openSqlite } from './sqlite/driver.ts';
import { schemaVersion } from './sqlite/migrations.ts';

/** SQLite's online backup, in one read transaction: consistent while servers keep writing. */
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
      // All pages in one step: a database written to between steps starts over at each.
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
