import { parseDatabaseUrl } from '../store/open-store.ts';
import type { PostgresPoolConfig } from '../store/postgres/pool.ts';
import { clusterBackend, type IpcChannel } from './cluster-backend.ts';
import { memoryBackend, type RateLimitBackend } from './rate-limits.ts';

/**
 * The rate-limit backend that suits the store: in this process's memory for SQLite (one
 * instance owns the file) — or, in a cluster worker (`primary` given), in the primary's
 * memory, so that all workers on the file count together (`cluster-backend.ts`); shared
 * through the database for PostgreSQL (several instances, and the workers of each, count
 * together; see `postgres-backend.ts`, loaded only then), on a pool built from `postgres`
 * (config.ts's PG_* settings) whose `onError` also hears of failed syncs.
 *
 * @example
 * const backend = await rateLimitBackendFor('file:./data/plants.db'); // memoryBackend
 * const shared = await rateLimitBackendFor('postgres://app@db/plants', config.postgres);
 */
export async function rateLimitBackendFor(
  databaseUrl: string,
  postgres: PostgresPoolConfig = {},
  primary?: IpcChannel,
): Promise<RateLimitBackend> {
  const location = parseDatabaseUrl(databaseUrl);
  if (location.kind !== 'postgres') return primary ? clusterBackend(primary) : memoryBackend;
  const { postgresBackend } = await import('./postgres-backend.ts');
  return postgresBackend({ ...postgres, url: location.url });
}
