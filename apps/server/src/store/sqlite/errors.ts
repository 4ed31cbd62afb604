import { StartupError } from '../../config.ts';
import { errorCode, StoreUnavailableError } from '../plant-store.ts';
import { SqliteError } from './driver.ts';

/** Extended result codes that mean "cannot reach the data now". */
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|PROTOCOL|READONLY|NOMEM)/;

/** Creates are refused (503), so none is acknowledged into a file that is gone. */
export class DatabaseFileGoneError extends StoreUnavailableError {
  constructor(
    readonly code: 'FILE_DELETED' | 'FILE_REPLACED',
    path: string,
  ) {
    const what = code === 'FILE_DELETED' ? 'deleted' : 'replaced by another file';
    super(`The database file is gone: ${path} was ${what} while the server had it open`);
  }
}

/** A DatabaseFileGoneError (its own code) and every other error not in UNAVAILABLE as they are. */
export function translateSqliteError(error: unknown): unknown {
  if (!UNAVAILABLE.test(errorCode(error) ?? '')) return error;
  const message = `SQLite is unavailable: ${(error as Error).message}`;
  return new StoreUnavailableError(message, { cause: error });
}

/**
 * One line naming the file and the error. SQLite cannot create a file in a directory this user
 * may not write (CANTOPEN), nor the -wal beside a file it may not write (READONLY).
 */
export function sqliteOpenError(error: unknown, filename: string): StartupError {
  if (error instanceof StartupError) return error;
  const message = error instanceof Error ? error.message : String(error);
  // An errno's message starts with its code already; SQLite's does not.
  const why = error instanceof SqliteError ? `${error.code}: ${message}` : message;
  const writable = !/^SQLITE_(READONLY|CANTOPEN)/.test(errorCode(error) ?? '');
  const text = writable ? why : `it cannot be written (${why})`;
  return new StartupError(`Cannot open the SQLite database ${filename}: ${text}.`, {
    cause: error,
  });
}
