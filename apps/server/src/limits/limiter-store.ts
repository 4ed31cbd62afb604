import {
  RateLimiterCluster,
  type RateLimiterLike,
  RateLimiterMemory,
  RateLimiterPostgres,
  RLWrapperTimeouts,
} from 'rate-limiter-flexible';
import { parseDatabaseUrl } from '../store/open-store.ts';
import { postgresCode } from '../store/postgres/errors.ts';
import { createPostgresPool, type PostgresPoolConfig } from '../store/postgres/pool.ts';

/** One limiter: `points` per fixed window of `duration` seconds, its keys prefixed. */
export interface LimiterShape {
  readonly keyPrefix: string;
  readonly points: number;
  readonly duration: number;
}

/** Where the counts of the limiters live: makes each limiter, and releases what it holds. */
export interface LimiterStore {
  limiter(shape: LimiterShape): Promise<RateLimiterLike>;
  close(): Promise<void>;
}

/** Counts in this process's memory (one process on SQLite, and the unit tests). */
export const memoryStore: LimiterStore = {
  limiter: async (shape) => new RateLimiterMemory(shape),
  close: async () => undefined,
};

/**
 * Counts in the primary's memory, for the workers of a cluster on SQLite: the primary runs a
 * `RateLimiterClusterMaster` (cluster.ts), each worker asks it over the cluster's IPC.
 */
export const clusterStore: LimiterStore = {
  limiter: async (shape) => new RateLimiterCluster({ ...shape, timeoutMs: 5_000 }),
  close: async () => undefined,
};

/**
 * Counts in PostgreSQL, shared by every instance on the database (a table per limiter, one
 * upsert per decision). A spent key is refused from memory (`inMemoryBlockOnConsumed`); while
 * the database fails or is slower than PG_CONNECT_TIMEOUT_MS (`RLWrapperTimeouts`), each
 * instance counts in its own memory (`insuranceLimiter`): precision lost, never a 500 or a hang.
 */
export function postgresStore(url: string, postgres: PostgresPoolConfig = {}): LimiterStore {
  const { pool, settings } = createPostgresPool({
    ...postgres,
    url,
    role: 'rate-limits',
    synchronousCommitOff: true,
  });
  const create = (shape: LimiterShape) =>
    new Promise<RateLimiterLike>((resolve, reject) => {
      const limiter = new RateLimiterPostgres(
        {
          ...shape,
          storeClient: pool,
          storeType: 'pool',
          inMemoryBlockOnConsumed: shape.points,
          insuranceLimiter: new RateLimiterMemory(shape),
        },
        (error) =>
          error
            ? reject(error)
            : resolve(new RLWrapperTimeouts({ limiter, timeoutMs: settings.connectTimeoutMs })),
      );
    });
  return {
    // Instances starting together may race on `CREATE TABLE IF NOT EXISTS` (42P07, 42710 or
    // 23505 from PostgreSQL): the table exists by then, so a second try succeeds.
    limiter: (shape) =>
      create(shape).catch((error: unknown) => {
        const code = postgresCode(error);
        if (code === '42P07' || code === '42710' || code === '23505') return create(shape);
        throw error;
      }),
    close: () => pool.end(),
  };
}

/**
 * The store that suits the database: PostgreSQL for a `postgres://` URL (several instances
 * share it), else the primary's memory in a cluster worker, else this process's memory.
 *
 * @example
 * const store = limiterStoreFor(config.databaseUrl, config.postgres, config.webConcurrency > 1);
 */
export function limiterStoreFor(
  databaseUrl: string,
  postgres: PostgresPoolConfig = {},
  clusterWorker = false,
): LimiterStore {
  const location = parseDatabaseUrl(databaseUrl);
  if (location.kind === 'postgres') return postgresStore(location.url, postgres);
  return clusterWorker ? clusterStore : memoryStore;
}
