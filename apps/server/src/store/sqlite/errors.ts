import { accessSync, constants, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type NotReadyCause, StoreOpenError, StoreUnavailableError } from '../plant-store.ts';
import { SqliteError } from './driver.ts';

/** Extended result codes that mean "cannot reach the data now". */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|PROTOCOL|READONLY|NOMEM)/;
const WRITABLE =
  "the database file, its -wal and -shm files and their directory writable by the server's user";
const AGAIN = 'the server is ready again once a write succeeds.';

export class DatabaseFileGoneError extends Error {
  override readonly name = 'DatabaseFileGoneError';
  constructor(
    readonly code: 'FILE_DELETED' | 'FILE_REPLACED',
    path: string,
  ) {
    const what = code === 'FILE_DELETED' ? 'deleted' : 'replaced by another file';
    super(`${path} was ${what} while the server had it open`);
  }
}

export function sqliteCode(error: unknown): string | undefined {
  return error instanceof SqliteError ? error.code : undefined;
}

export function translateSqliteError(error: unknown): unknown {
  const gone = error instanceof DatabaseFileGoneError;
  if (!gone && !UNAVAILABLE.test(sqliteCode(error) ?? '')) return error;
  const what = gone ? 'The database file is gone' : 'SQLite is unavailable';
  return new StoreUnavailableError(`${what}: ${(error as Error).message}`, { cause: error });
}

export function describeSqliteFailure(error: unknown, filename: string): NotReadyCause {
  const cause = error instanceof StoreUnavailableError ? (error.cause ?? error) : error;
  if (cause instanceof DatabaseFileGoneError) {
    const action =
      'Creates are refused, so none is acknowledged into a file that is gone. Put the ' +
      'database file back if it was removed by mistake, then restart the server; never ' +
      "delete or replace a running server's database files.";
    return { code: cause.code, message: cause.message, action };
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  const code = sqliteCode(cause) ?? (cause instanceof Error ? cause.name : 'UNKNOWN');
  const [what, action] = code.startsWith('SQLITE_FULL')
    ? [
        `The disk holding ${filename} is full`,
        `Free space on the file system of ${dirname(filename)}; the server is ready again within seconds of the next successful write.`,
      ]
    : code.startsWith('SQLITE_READONLY')
      ? [
          `${filename} cannot be written`,
          `Make ${WRITABLE} (and the file system writable), then restart the server.`,
        ]
      : code.startsWith('SQLITE_IOERR')
        ? [`I/O error on ${filename}`, `Check the disk and the kernel log; ${AGAIN}`]
        : [`A write to ${filename} failed`, `See the error; ${AGAIN}`];
  return { code, message: `${what}: ${message}`, action };
}

export function sqliteOpenError(error: unknown, filename: string): StoreOpenError {
  if (error instanceof StoreOpenError) return error;
  const opening = `Cannot open the SQLite database ${filename}`;
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | undefined)?.code; // SQLite's, or an errno's
  if (typeof code !== 'string') {
    return new StoreOpenError(`${opening}: ${message}`, { cause: error });
  }
  const why = message.startsWith(code) ? message : `${code}: ${message}`;
  const other = 'or set DATABASE_URL to another file';
  let text = `${why}.`;
  if (code.startsWith('SQLITE_READONLY')) {
    text = `it is read-only for this user (${why}). Make ${WRITABLE}, ${other}.`;
  } else if (isDirectory(filename)) {
    text = `it is a directory. Set DATABASE_URL to a file, e.g. ${join(filename, 'plants.db')}.`;
  } else if (onReadOnlyMount(dirname(filename))) {
    text = `its file system is mounted read-only (${why}). Remount it read-write, ${other}.`;
  } else if (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('E')) {
    text = `the file cannot be created or opened there (${why}). Make sure ${dirname(filename)} is a directory the server's user can write (or can create), ${other}.`;
  } else if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    text = `it is not a SQLite database, or it is damaged (${code}). Point DATABASE_URL at a plant-store database or a new file.`;
  }
  return new StoreOpenError(`${opening}: ${text}`, { cause: error });
}

function onReadOnlyMount(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EROFS';
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
