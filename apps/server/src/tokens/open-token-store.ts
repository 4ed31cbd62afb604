import { parseDatabaseUrl } from '../store/open-store.ts';
import { createSqliteTokenStore } from './sqlite-token-store.ts';
import type { TokenStore } from './token-store.ts';

/**
 * Opens the managed tokens of the database `databaseUrl` names (the plant store's: a SQLite
 * file or a PostgreSQL database, see `parseDatabaseUrl`), migrating it when needed.
 *
 * @example
 * const tokens = await openTokenStore('file:./data/plants.db');
 * console.log(await tokens.list());
 * await tokens.close();
 */
export async function openTokenStore(databaseUrl: string): Promise<TokenStore> {
  const location = parseDatabaseUrl(databaseUrl);
  if (location.kind === 'postgres') {
    // Loaded on demand, like the plant store: a SQLite deployment never loads pg.
    const { createPostgresTokenStore } = await import('./postgres-token-store.ts');
    return createPostgresTokenStore({ url: location.url });
  }
  return createSqliteTokenStore({ filename: location.filename });
}
