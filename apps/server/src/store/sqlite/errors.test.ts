import { describe, expect, it } from 'vitest';
import { StartupError } from '../../config.ts';
import { StoreUnavailableError } from '../plant-store.ts';
import { openSqlite, SqliteError } from './driver.ts';
import { DatabaseFileGoneError, sqliteOpenError, translateSqliteError } from './errors.ts';

/** The error SQLite itself throws for `sql` on a fresh database. */
function thrownBy(sql: string): unknown {
  const db = openSqlite(':memory:');
  try {
    db.exec(sql);
  } catch (error) {
    return error;
  } finally {
    db.close();
  }
  throw new Error(`no error from ${sql}`);
}

describe('translateSqliteError', () => {
  it.each([
    'SQLITE_BUSY',
    'SQLITE_LOCKED',
    'SQLITE_IOERR_WRITE',
    'SQLITE_FULL',
    'SQLITE_READONLY',
    'SQLITE_CANTOPEN',
  ])('makes %s "unavailable" (a 503), keeping the cause', (code) => {
    const cause = new SqliteError('disk trouble', code);
    const translated = translateSqliteError(cause);
    expect(translated).toBeInstanceOf(StoreUnavailableError);
    expect((translated as Error).message).toBe('SQLite is unavailable: disk trouble');
    expect((translated as Error).cause).toBe(cause);
  });

  it('passes every other error as it is (a bug, a constraint: a 500)', () => {
    const syntax = thrownBy('SELEKT 1');
    expect(translateSqliteError(syntax)).toBe(syntax);
    const plain = new Error('no code');
    expect(translateSqliteError(plain)).toBe(plain);
  });
});

describe('DatabaseFileGoneError', () => {
  it('is unavailable, with its own code and a message naming the file', () => {
    const deleted = new DatabaseFileGoneError('FILE_DELETED', '/srv/plants.db');
    expect(deleted).toBeInstanceOf(StoreUnavailableError);
    expect(deleted.code).toBe('FILE_DELETED');
    expect(deleted.message).toBe(
      'The database file is gone: /srv/plants.db was deleted while the server had it open',
    );
    expect(new DatabaseFileGoneError('FILE_REPLACED', '/srv/plants.db').message).toMatch(
      /was replaced by another file while/,
    );
  });
});

describe('sqliteOpenError', () => {
  it('is one StartupError line naming the file and SQLite code', () => {
    const error = sqliteOpenError(
      new SqliteError('file is not a database', 'SQLITE_NOTADB'),
      '/x.db',
    );
    expect(error).toBeInstanceOf(StartupError);
    expect(error.message).toBe(
      'Cannot open the SQLite database /x.db: SQLITE_NOTADB: file is not a database.',
    );
  });

  it('says a database SQLite cannot write, or create, cannot be written', () => {
    const error = sqliteOpenError(
      new SqliteError('attempt to write a readonly database', 'SQLITE_READONLY'),
      '/srv/plants.db',
    );
    expect(error.message).toMatch(/: it cannot be written \(SQLITE_READONLY: attempt to write/);
    const cantOpen = new SqliteError('unable to open database file', 'SQLITE_CANTOPEN');
    expect(sqliteOpenError(cantOpen, '/x.db').message).toBe(
      'Cannot open the SQLite database /x.db: it cannot be written (SQLITE_CANTOPEN: unable to open database file).',
    );
  });

  it('leaves a StartupError as it is', () => {
    const given = new StartupError('already one line');
    expect(sqliteOpenError(given, '/x.db')).toBe(given);
  });
});
