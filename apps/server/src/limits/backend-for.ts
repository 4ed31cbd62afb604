import { parseDatabaseUrl } from '../store/open-store.ts';
import type { PostgresPoolConfig } from '../store/postgres/pool.ts';
import { memoryBackend, type RateLimitBackend } from './rate-limits.ts';

/**
 * The rate-limit backend that suits the store: in this process's memory for SQLite (one
 * instance owns the file), shared through the database for PostgreSQL (several instances
 * count together; see `postgres-backend.ts`, loaded only then), on a pool built from
 * `postgres` (config.ts's PG_* settings) whose `onError` also hears of failed syncs.
 *
 * @example
 * const backend = await rateLimitBackendFor('file:./data/plants.db'); // memoryBackend
 * const shared = await rateLimitBackendFor('postgres://app@db/plants', config.postgres);
 */
export async function rateLimitBackendFor(
  databaseUrl: string,
  postgres: PostgresPoolConfig = {},
): Promise<RateLimitBackend> {
  const location = parseDatabaseUrl(databaseUrl);
  if (location.kind !== 'postgres') return memoryBackend;
  const { postgresBackend } = await import('./postgres-backend.ts');
  return postgresBackend({ ...postgres, url: location.url });
}
