import { type TokenStore, tokenStore } from '../../src/auth/token-store.ts';
import { type PostgresConfig, parseDatabase } from '../../src/config.ts';
import { openDatabaseHandle } from '../../src/store/database.ts';
import { openDatabase } from '../../src/store/sqlite/open-database.ts';

/**
 * The managed tokens of the SQLite file `filename` on a connection of their own (opened and
 * migrated as the server opens it); closing the store closes that connection.
 *
 * @example
 * const tokens = createSqliteTokenStore({ filename: join(folder, 'plants.db') });
 */
export function createSqliteTokenStore({ filename }: { readonly filename: string }): TokenStore {
  const db = openDatabase(filename);
  const store = tokenStore({ kind: 'sqlite', filename, db, close: async () => void db.close() });
  return {
    ...store,
    close: async () => {
      await store.close();
      db.close();
    },
  };
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
): Promise<TokenStore> {
  const handle = await openDatabaseHandle(parseDatabase(url), { postgres });
  const store = tokenStore(handle);
  return {
    ...store,
    close: async () => {
      await store.close();
      await handle.close();
    },
  };
}
