import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createPrivateFile } from './private-files.ts';
import { openSqlite } from './sqlite/driver.ts';
import { MIGRATIONS, schemaVersion } from './sqlite/migrations.ts';

/** What a backup killed before its rename left: `<target>.partial-<pid>` and its side files. */
const PARTIAL = /\.partial-(\d+)(-journal|-wal|-shm)?$/;

/**
 * SQLite's VACUUM INTO, in one read transaction (consistent while servers keep writing), to
 * `<target>.partial-<pid>` beside the target, checked, fsynced and renamed into place: the target
 * name holds a complete backup or nothing. Removes the partial files of dead backups there first.
 */
export async function backupSqlite(source: string, target: string) {
  const refuse = () => {
    if (existsSync(target)) throw new Error(`${target} exists: a backup goes to a new file`);
  };
  refuse();
  const directory = dirname(target);
  for (const name of readdirSync(directory)) {
    const pid = Number(PARTIAL.exec(name)?.[1] ?? 0);
    if (pid > 0 && !running(pid)) rmSync(join(directory, name), { force: true });
  }
  const partial = `${target}.partial-${process.pid}`;
  const db = openSqlite(source, { readonly: true, fileMustExist: true });
  try {
    createPrivateFile(partial, { exclusive: true });
    // A copy in rollback-journal mode: one self-contained file (servers switch it to WAL).
    db.prepare('VACUUM INTO ?').run(partial);
    const checked = checkBackup(partial);
    await fsync(partial);
    refuse();
    renameSync(partial, target);
    await fsync(directory);
    return checked;
  } catch (error) {
    for (const end of ['', '-journal', '-wal', '-shm']) rmSync(`${partial}${end}`, { force: true });
    throw error;
  } finally {
    db.close();
  }
}

/**
 * Opens `file` read-only and throws unless it is a whole plant-store database this release can
 * start on: `quick_check` ok, a known schema version, a plants table.
 */
export function checkBackup(file: string) {
  let db: ReturnType<typeof openSqlite> | undefined;
  try {
    if (existsSync(`${file}-journal`))
      throw new Error(`a ${file}-journal beside it (an unfinished copy)`);
    db = openSqlite(file, { readonly: true, fileMustExist: true });
    const version = schemaVersion(db);
    if (version < 1 || version > MIGRATIONS.length) {
      throw new Error(`schema version ${version}; this release knows 1 to ${MIGRATIONS.length}`);
    }
    const problems = db.pragma('quick_check', { simple: false }) as { quick_check: string }[];
    if (problems[0]?.quick_check !== 'ok') {
      throw new Error(`quick_check: ${problems.map((row) => row.quick_check).join('; ')}`);
    }
    const plants = Number(db.prepare('SELECT count(*) FROM plants').pluck().get());
    const pages = Number(db.pragma('page_count', { simple: true }));
    return { schemaVersion: version, pages, plants };
  } catch (error) {
    throw new Error(`${file} is not a usable backup: ${(error as Error).message}`);
  } finally {
    db?.close();
  }
}

function running(pid: number): boolean {
  try {
    return process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A file's data, or a directory's entries, on the disk. */
async function fsync(path: string): Promise<void> {
  const file = await open(path, 'r');
  await file.sync().finally(() => file.close());
}
