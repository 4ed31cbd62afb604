import type BetterSqlite3 from 'better-sqlite3';
import { StoreUnavailableError } from '../store/plant-store.ts';
import { SqliteError } from '../store/sqlite/driver.ts';
import { openDatabase } from '../store/sqlite/open-database.ts';
import { type Statement, sqlTokenStore, type TokenRow, type TokenStore } from './token-store.ts';

/**
 * Opens the managed tokens of a SQLite plant store on a connection of its own (WAL lets it
 * read while the plant store writes), migrating the file first, so the command-line tool
 * works before the server ever ran. Writes are fsynced (`synchronous=FULL`).
 */
export function createSqliteTokenStore({ filename }: { readonly filename: string }): TokenStore {
  // One line naming the file, why and what to do when it cannot be opened (tool and server).
  const open = openDatabase(filename);
  const prepared = new Map<string, BetterSqlite3.Statement>();
  const all = ([sql, values]: Statement) => {
    const statement = prepared.get(sql) ?? open.prepare(sql);
    prepared.set(sql, statement);
    // `$1`, `$2`… are SQLite named parameters `1`, `2`…
    const parameters = Object.fromEntries(values.map((value, i) => [i + 1, value]));
    if (statement.reader) return statement.all(parameters) as TokenRow[];
    statement.run(parameters);
    return [];
  };
  const transaction = open.transaction((statements: readonly Statement[]) => statements.map(all));
  return sqlTokenStore({
    run: async (statements) =>
      statements.length === 1 ? statements.map(all) : transaction.immediate(statements),
    isNameTaken: (error) =>
      error instanceof SqliteError &&
      error.code === 'SQLITE_CONSTRAINT_UNIQUE' &&
      error.message.includes('tokens.name'),
    // The server answers 503 (and the client retries) rather than 500 on a locked file.
    lookUpError: (error) =>
      new StoreUnavailableError(`SQLite could not look up a token: ${String(error)}`, {
        cause: error,
      }),
    close: async () => {
      open.close();
    },
  });
}
