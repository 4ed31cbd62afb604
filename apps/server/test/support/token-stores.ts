import { type TokenStore, tokenStore } from '../../src/auth/token-store.ts';
import { type PostgresConfig, parseDatabase } from '../../src/config.ts';
import { openDatabaseHandle } from '../../src/store/database.ts';
import { openDatabase } from '../../src/store/sqlite/open-database.ts';

/** A token store on a connection of its own, which `close` closes. */
export type ClosableTokenStore = TokenStore & { close(): Promise<void> };

/**
 * The managed tokens of the SQLite file `filename` on a connection of their own (opened and
 * migrated as the server opens it); closing the store closes that connection.
 *
 * @example
 * const tokens = createSqliteTokenStore({ filename: join(folder, 'plants.db') });
 */
export function createSqliteTokenStore({
  filename,
}: {
  readonly filename: string;
}): ClosableTokenStore {
  const db = openDatabase(filename);
  const close = async () => void db.close();
  return { ...tokenStore({ kind: 'sqlite', filename, db, close }), close };
}

/**
 * The managed tokens of the database `url` names on a handle of their own (a PostgreSQL pool
 * with the PG_* settings given, migrated); closing the store closes the handle.
 *
 * @example
 * const tokens = await openTokenStore(schema.url, { statementTimeoutMs: 1234 });
 */
export async function openTokenStore(
  url: string,
  postgres: Partial<PostgresConfig> = {},
): Promise<ClosableTokenStore> {
  const handle = await openDatabaseHandle(parseDatabase(url), { postgres });
  return { ...tokenStore(handle), close: () => handle.close() };
}
