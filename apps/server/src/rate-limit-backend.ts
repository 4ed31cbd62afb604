import type { Config } from './config.ts';
import { memoryBackend, type RateLimitBackend } from './rate-limit.ts';
import { parseDatabaseUrl } from './store/open-store.ts';

/**
 * The rate-limit backend that suits the store: in this process's memory for SQLite (one
 * instance owns the file), shared through the database for PostgreSQL (several instances
 * count together; see `rate-limit-postgres.ts`, loaded only then).
 *
 * @example
 * const backend = await rateLimitBackendFor('file:./data/plants.db'); // memoryBackend
 */
export async function rateLimitBackendFor(
  databaseUrl: string,
  postgres: Partial<Config['postgres']> = {},
  onError?: (error: unknown) => void,
): Promise<RateLimitBackend> {
  const location = parseDatabaseUrl(databaseUrl);
  if (location.kind !== 'postgres') return memoryBackend;
  const { postgresBackend } = await import('./rate-limit-postgres.ts');
  return postgresBackend({
    url: location.url,
    ...(postgres.connectTimeoutMs === undefined
      ? {}
      : { connectTimeoutMs: postgres.connectTimeoutMs }),
    ...(postgres.statementTimeoutMs === undefined
      ? {}
      : { statementTimeoutMs: postgres.statementTimeoutMs }),
    ...(onError ? { onError } : {}),
  });
}
