import { parseDatabaseUrl } from '../store/open-store.ts';
import type { PostgresPoolConfig } from '../store/postgres/pool.ts';
import { createSqliteTokenStore } from './sqlite-token-store.ts';
import type { TokenStore } from './token-store.ts';

/**
 * Opens the managed tokens of the database `databaseUrl` names (the plant store's: a SQLite
 * file or a PostgreSQL database, see `parseDatabaseUrl`), migrating it when needed. For
 * PostgreSQL, `postgres` gives the pool settings (config.ts's `postgres`: PG_POOL_MAX,
 * PG_CONNECT_TIMEOUT_MS, PG_STATEMENT_TIMEOUT_MS) and the idle-connection error hook.
 *
 * @example
 * const tokens = await openTokenStore('file:./data/plants.db');
 * console.log(await tokens.list());
 * await tokens.close();
 * const shared = await openTokenStore('postgres://app@db/plants', config.postgres);
 */
export async function openTokenStore(
  databaseUrl: string,
  postgres: PostgresPoolConfig = {},
): Promise<TokenStore> {
  const location = parseDatabaseUrl(databaseUrl);
  if (location.kind === 'postgres') {
    // Loaded on demand, like the plant store: a SQLite deployment never loads pg.
    const { createPostgresTokenStore } = await import('./postgres-token-store.ts');
    return createPostgresTokenStore({ ...postgres, url: location.url });
  }
  return createSqliteTokenStore({ filename: location.filename });
}
