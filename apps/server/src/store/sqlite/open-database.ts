import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type Database from 'better-sqlite3';
import { StartupError } from '../../config.ts';
import { type Durability, errorCode } from '../plant-store.ts';
import { createPrivateFile, makePrivateDirectory } from '../private-files.ts';
import { openSqlite } from './driver.ts';
import { sqliteOpenError } from './errors.ts';
import { migrate } from './migrations.ts';

export interface OpenDatabaseOptions {
  readonly durability?: Durability;
  /** How long a statement waits for a lock; default 5000. */
  readonly busyTimeoutMs?: number;
}

/** Opens `filename` in WAL mode, migrated and written once; a failure is one StartupError line. */
export function openDatabase(
  filename: string,
  { durability = 'full', busyTimeoutMs = 5000 }: OpenDatabaseOptions = {},
): Database.Database {
  if (filename === ':memory:') throw new Error('SQLite needs a database file, not :memory:');
  let db: Database.Database | undefined;
  try {
    makePrivateDirectory(dirname(filename));
    if (statSync(filename, { throwIfNoEntry: false })?.isDirectory()) {
      throw new StartupError(
        `Cannot open the SQLite database ${filename}: it is a directory. Set DATABASE_URL to a file, e.g. ${join(filename, 'plants.db')}.`,
      );
    }
    try {
      createPrivateFile(filename);
    } catch {} // SQLite's own open says why
    db = openSqlite(filename, { timeout: busyTimeoutMs });
    switchToWal(db, busyTimeoutMs);
    // After WAL: better-sqlite3's build gives a WAL connection NORMAL unless set explicitly.
    db.pragma(`synchronous = ${durability === 'full' ? 'FULL' : 'NORMAL'}`);
    // A burst's WAL space is given back when the WAL starts over.
    db.pragma(`journal_size_limit = ${4 * 1024 * 1024}`);
    migrate(db);
    // A file this user cannot write opens read-only without a word: one real write says so.
    writeBack(db);
    return db;
  } catch (error) {
    db?.close();
    throw sqliteOpenError(error, filename);
  }
}

/** A real write and commit that changes nothing: the file's application_id written back. */
export function writeBack(db: Database.Database): void {
  db.pragma(`application_id = ${Number(db.pragma('application_id', { simple: true }))}`);
}

/**
 * Incremental auto-vacuum, then WAL; retried while SQLITE_BUSY: on a new file the pragmas'
 * lock upgrade ignores the busy timeout, so two processes creating the same file would fail at
 * once. Between tries, a write lock taken and given back waits for the other writer through
 * SQLite's own busy timeout.
 */
function switchToWal(db: Database.Database, busyTimeoutMs: number): void {
  const deadline = Date.now() + busyTimeoutMs;
  for (;;) {
    try {
      // Takes effect on a new file only (an existing one needs a VACUUM): a sweep's pages go back.
      db.pragma('auto_vacuum = INCREMENTAL');
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (mode === 'wal') return;
      throw new Error(`SQLite did not switch to journal_mode=WAL (it reads back ${String(mode)})`);
    } catch (error) {
      if (errorCode(error) !== 'SQLITE_BUSY' || Date.now() >= deadline) throw error;
      db.exec('BEGIN IMMEDIATE; COMMIT');
    }
  }
}
