import { parseDatabaseUrl } from '../store/open-store.ts';
import type { PostgresPoolConfig } from '../store/postgres/pool.ts';
import { createSqliteTokenStore } from './sqlite-token-store.ts';

/** Opens (and migrates) the managed tokens of `databaseUrl`'s database, with the PG_* pool settings. */
export async function openTokenStore(databaseUrl: string, postgres: PostgresPoolConfig = {}) {
  const location = parseDatabaseUrl(databaseUrl);
  if (location.kind === 'sqlite') return createSqliteTokenStore({ filename: location.filename });
  // Loaded on demand, like the plant store: a SQLite deployment never loads pg.
  const { createPostgresTokenStore } = await import('./postgres-token-store.ts');
  return createPostgresTokenStore({ ...postgres, url: location.url });
}
