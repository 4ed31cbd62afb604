import { parseDatabaseUrl } from '../store/open-store.ts';
import type { PostgresPoolConfig } from '../store/postgres/pool.ts';
import { createSqliteTokenStore } from './sqlite-token-store.ts';
import type { TokenStore } from './token-store.ts';

/**
 * Opens the managed tokens of the database `databaseUrl` names (see `parseDatabaseUrl`),
 * migrating it when needed; `postgres` is config.ts's PG_* pool settings.
 */
export async function openTokenStore(
  databaseUrl: string,
  postgres: PostgresPoolConfig = {},
): Promise<TokenStore> {
  const location = parseDatabaseUrl(databaseUrl);
  if (location.kind === 'sqlite') return createSqliteTokenStore({ filename: location.filename });
  // Loaded on demand, like the plant store: a SQLite deployment never loads pg.
  const { createPostgresTokenStore } = await import('./postgres-token-store.ts');
  return createPostgresTokenStore({ ...postgres, url: location.url });
}
