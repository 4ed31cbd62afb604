import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import type { Durability } from '../plant-store.ts';
import { createPrivateFile, makePrivateDirectory } from '../private-files.ts';
import { openSqlite } from './driver.ts';
import { sqliteCode, sqliteOpenError } from './errors.ts';
import { migrate } from './migrations.ts';

const SYNCHRONOUS: Record<Durability, number> = { normal: 1, full: 2 };

/** Pause between two tries of switching a new file to WAL. */
const WAL_RETRY_MS = 10;

/** How a SQLite file is opened; `busyTimeoutMs` is how long a statement waits for a lock. */
export interface OpenDatabaseOptions {
  /** `full` (the default): `synchronous=FULL`; `normal`: `synchronous=NORMAL`. */
  readonly durability?: Durability;
  /** Default 5000. */
  readonly busyTimeoutMs?: number;
}

/**
 * Opens `filename` (creating it 0600 and its directory 0700) in WAL mode with the requested
 * synchronous level, both read back, migrates it and writes to it once; a failure is the
 * one-line StoreOpenError. A serving process opens its file once (store/database.ts).
 */
export function openDatabase(
  filename: string,
  { durability = 'full', busyTimeoutMs = 5000 }: OpenDatabaseOptions = {},
): Database.Database {
  if (filename === '' || filename === ':memory:') {
    throw new Error(`The SQLite store needs a database file, not ${JSON.stringify(filename)}`);
  }
  let db: Database.Database | undefined;
  try {
    // A new file starts 0600 in a 0700 directory; SQLite gives its -wal and -shm the same mode.
    makePrivateDirectory(dirname(filename));
    try {
      createPrivateFile(filename);
    } catch {} // SQLite's own open, next, says why the file cannot be made
    db = openSqlite(filename, { timeout: busyTimeoutMs });
    switchToWal(db, busyTimeoutMs);
    // After WAL: better-sqlite3 is built with SQLITE_DEFAULT_WAL_SYNCHRONOUS=1, so a WAL
    // connection silently gets NORMAL unless synchronous is set explicitly.
    db.pragma(`synchronous = ${SYNCHRONOUS[durability]}`);
    // The WAL file is truncated to 4 MiB when it starts over, giving a burst's space back.
    db.pragma(`journal_size_limit = ${4 * 1024 * 1024}`);
    const mode = db.pragma('journal_mode', { simple: true });
    const synchronous = Number(db.pragma('synchronous', { simple: true }));
    if (mode !== 'wal' || synchronous !== SYNCHRONOUS[durability]) {
      throw new Error(
        `SQLite did not apply journal_mode=WAL and synchronous=${SYNCHRONOUS[durability]} (it reads back ${String(mode)}, ${synchronous})`,
      );
    }
    migrate(db);
    // A file this user cannot write (mode 0444, a read-only directory or mount) opens read-only
    // without a word: one real write, the application_id as it is, makes that a start-up error.
    const open = db;
    const applicationId = Number(open.pragma('application_id', { simple: true }));
    open.transaction(() => open.pragma(`application_id = ${applicationId}`)).immediate();
    return open;
  } catch (error) {
    db?.close();
    throw sqliteOpenError(error, filename);
  }
}

/**
 * `PRAGMA journal_mode = WAL`, tried again until `busyTimeoutMs` while it is SQLITE_BUSY. On a
 * file not yet in WAL mode the pragma reads the header, then upgrades to a write lock; SQLite
 * does not wait for that upgrade (the busy timeout does not apply) but fails at once when
 * another connection writes, as when cluster workers create the same new file together.
 */
export function switchToWal(db: Database.Database, busyTimeoutMs: number): void {
  const deadline = Date.now() + busyTimeoutMs;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if (sqliteCode(error) !== 'SQLITE_BUSY' || Date.now() >= deadline) throw error;
      // Start-up only: a synchronous pause, as SQLite's own busy handler would sleep.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, WAL_RETRY_MS);
    }
  }
}
