import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type NotReadyCause, StoreOpenError, StoreUnavailableError } from '../plant-store.ts';
import { SqliteError } from './driver.ts';

// Every SQLite failure is classified here: for a request (503 or not), for readiness (the cause
// and what to do), and at start-up (one line naming the file, why, and what to do).

/** SQLite result codes (prefixes of the extended codes) that mean "cannot reach the data now". */
const UNAVAILABLE_CODES = [
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_IOERR',
  'SQLITE_FULL',
  'SQLITE_CANTOPEN',
  'SQLITE_PROTOCOL',
  'SQLITE_READONLY',
  'SQLITE_NOMEM',
];

/** Thrown when a database file is no longer the one the store has open. */
export class DatabaseFileGoneError extends Error {
  override readonly name = 'DatabaseFileGoneError';
  constructor(
    readonly code: 'FILE_DELETED' | 'FILE_REPLACED',
    readonly path: string,
  ) {
    super(
      code === 'FILE_DELETED'
        ? `${path} was deleted while the server had it open`
        : `${path} was replaced by another file while the server had it open`,
    );
  }
}

/** SQLite's extended result code of `error` (`SQLITE_FULL`, …), if it is a SQLite error. */
export function sqliteCode(error: unknown): string | undefined {
  return error instanceof SqliteError ? error.code : undefined;
}

/** SQLite errors that mean the database cannot be reached become StoreUnavailableError. */
export function translateSqliteError(error: unknown): unknown {
  if (error instanceof DatabaseFileGoneError) {
    return new StoreUnavailableError(`The database file is gone: ${error.message}`, {
      cause: error,
    });
  }
  const code = sqliteCode(error);
  if (code !== undefined && UNAVAILABLE_CODES.some((prefix) => code.startsWith(prefix))) {
    return new StoreUnavailableError(`SQLite is unavailable: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return error;
}

const WRITABLE =
  "the database file, its -wal and -shm files and their directory writable by the server's user";

/**
 * Why a write to the SQLite store failed, with what the operator should do about it.
 *
 * @example
 * describeSqliteFailure(error, 'data/plants.db'); // { code: 'SQLITE_FULL', message: …, action: 'Free space …' }
 */
export function describeSqliteFailure(error: unknown, filename: string): NotReadyCause {
  const cause = error instanceof StoreUnavailableError ? (error.cause ?? error) : error;
  if (cause instanceof DatabaseFileGoneError) {
    return {
      code: cause.code,
      message: cause.message,
      action:
        'Creates are refused, so none is acknowledged into a file that is gone. Put the ' +
        'database file back if it was removed by mistake, then restart the server; never ' +
        "delete or replace a running server's database files.",
    };
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  const code = sqliteCode(cause) ?? (cause instanceof Error ? cause.name : 'UNKNOWN');
  if (code.startsWith('SQLITE_FULL')) {
    return {
      code,
      message: `The disk holding ${filename} is full: ${message}`,
      action: `Free space on the file system of ${dirname(filename)}; the server is ready again within seconds of the next successful write.`,
    };
  }
  if (code.startsWith('SQLITE_READONLY')) {
    return {
      code,
      message: `${filename} cannot be written: ${message}`,
      action: `Make ${WRITABLE} (and the file system writable), then restart the server.`,
    };
  }
  if (code.startsWith('SQLITE_IOERR')) {
    return {
      code,
      message: `I/O error on ${filename}: ${message}`,
      action: 'Check the disk and the kernel log; the server is ready again once a write succeeds.',
    };
  }
  return {
    code,
    message: `A write to ${filename} failed: ${message}`,
    action: 'See the error; the server is ready again once a write succeeds.',
  };
}

/**
 * The one-line start-up error for a SQLite database that cannot be opened: the file, why,
 * and what to do.
 */
export function sqliteOpenError(error: unknown, filename: string): StoreOpenError {
  const opening = `Cannot open the SQLite database ${filename}`;
  const other = 'or set DATABASE_URL to another file';
  const message = error instanceof Error ? error.message : String(error);
  const code = sqliteCode(error) ?? (error as { code?: unknown }).code;
  if (error instanceof StoreOpenError) return error;
  if (typeof code !== 'string')
    return new StoreOpenError(`${opening}: ${message}`, { cause: error });
  const why = message.startsWith(code) ? message : `${code}: ${message}`;
  let text = `${opening}: ${why}.`;
  if (code.startsWith('SQLITE_READONLY')) {
    text = `${opening}: it is read-only for this user (${why}). Make ${WRITABLE}, ${other}.`;
  } else if (isDirectory(filename)) {
    text = `${opening}: it is a directory. Set DATABASE_URL to a file, e.g. ${join(filename, 'plants.db')}.`;
  } else if (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('E')) {
    text =
      `${opening}: the file cannot be created or opened there (${why}). ` +
      `Make sure ${dirname(filename)} is a directory the server's user can write (or can create), ${other}.`;
  } else if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    text = `${opening}: it is not a SQLite database, or it is damaged (${code}). Point DATABASE_URL at a plant-store database or a new file.`;
  }
  return new StoreOpenError(text, { cause: error });
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
