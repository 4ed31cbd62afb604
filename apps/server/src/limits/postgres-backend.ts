import { createPostgresPool, type PostgresPoolConfig } from '../store/postgres/pool.ts';
import { loadRateLimiterPostgres } from './flexible.ts';
import { postgresTokenBuckets } from './postgres-token-buckets.ts';
import type { Limiter, LimiterSpec, RateLimitBackend } from './rate-limits.ts';
import { SyncedLimiter } from './synced-limiter.ts';

/**
 * Options of `postgresBackend`: the store's URL and the PG_* settings every PostgreSQL pool
 * of the server shares (see `store/postgres/pool.ts`). The limiter's own pool holds at most 2
 * connections (one sync per interval), never more than `poolMax`.
 */
export interface PostgresRateLimitOptions extends PostgresPoolConfig {
  /** The store's `postgres://` URL: the counts live in the same database (and schema). */
  readonly url: string;
  /** How often each instance adds its counts to the shared ones; default 100 ms. */
  readonly syncIntervalMs?: number;
  /**
   * Told about a failed sync (context `rate-limit sync with PostgreSQL failed`) or a broken
   * idle connection; the limits keep working locally. Throttled during an outage.
   */
  readonly onError?: (error: Error, context: string) => void;
}

/** During an outage a sync fails every interval: report the first failure, then one per 30 s. */
const ERROR_REPORT_INTERVAL_MS = 30_000;

function throttle(
  report: (error: Error, context: string) => void,
  intervalMs: number,
): (error: Error, context: string) => void {
  let last = -Infinity;
  return (error, context) => {
    const now = Date.now();
    if (now - last < intervalMs) return;
    last = now;
    report(error, context);
  };
}

/** The table of each limiter is named after its key prefix: `rate_limit_<prefix>`. */
export function rateLimitTable(keyPrefix: string): string {
  return `rate_limit_${keyPrefix}`;
}

/**
 * A rate-limit backend whose counts every instance shares through PostgreSQL: fixed windows
 * by rate-limiter-flexible's RateLimiterPostgres (a table per limiter, created when missing,
 * rows expiring with their window), token buckets by `postgresTokenBuckets` (a table of
 * GCRA rows per limiter), each behind a `SyncedLimiter` so that requests are decided
 * locally and the database sees one upsert per key per sync interval, not one per request.
 * The sessions use `synchronous_commit = off`: a count lost in a database crash only lets a
 * few more requests through.
 *
 * @example
 * const backend = await postgresBackend({ url: 'postgres://app@db/plants' });
 * const limits = await RateLimits.create(config.rateLimit, backend);
 */
export async function postgresBackend(
  options: PostgresRateLimitOptions,
): Promise<RateLimitBackend> {
  const onError = throttle(options.onError ?? (() => undefined), ERROR_REPORT_INTERVAL_MS);
  const { pool } = createPostgresPool({
    ...options,
    role: 'rate-limits',
    onError,
    synchronousCommitOff: true,
  });
  const onSyncError = (error: unknown) =>
    onError(
      error instanceof Error ? error : new Error(String(error)),
      'rate-limit sync with PostgreSQL failed',
    );
  const RateLimiterPostgres = loadRateLimiterPostgres();
  const synced: SyncedLimiter[] = [];

  // Two instances starting at once may both run the library's `CREATE TABLE IF NOT EXISTS`;
  // PostgreSQL then fails one of them ('relation/type "…" already exists': 42P07, 42710, or
  // 23505 on pg_type). The table exists by then, so creating the limiter once more succeeds.
  const limiter = (spec: LimiterSpec): Promise<Limiter> =>
    createLimiter(spec).catch((error: unknown) => {
      const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
      const raced =
        code === '42P07' ||
        code === '42710' ||
        code === '23505' ||
        (typeof message === 'string' && message.endsWith('already exists'));
      if (raced) return createLimiter(spec);
      throw error;
    });

  const syncedLocally = (remote: Limiter, spec: LimiterSpec): Limiter => {
    const local = new SyncedLimiter(remote, {
      points: spec.points,
      durationSeconds: spec.durationSeconds,
      refill: spec.refill ?? 'window',
      ...(options.syncIntervalMs === undefined ? {} : { syncIntervalMs: options.syncIntervalMs }),
      onError: onSyncError,
    });
    synced.push(local);
    return local;
  };

  const createLimiter = async (spec: LimiterSpec): Promise<Limiter> =>
    spec.refill === 'smooth'
      ? syncedLocally(await postgresTokenBuckets(pool, rateLimitTable(spec.keyPrefix), spec), spec)
      : createWindowLimiter(spec);

  const createWindowLimiter = (spec: LimiterSpec) =>
    new Promise<Limiter>((resolve, reject) => {
      const remote = new RateLimiterPostgres(
        {
          storeClient: pool,
          storeType: 'pool',
          tableName: rateLimitTable(spec.keyPrefix),
          keyPrefix: spec.keyPrefix,
          points: spec.points,
          duration: spec.durationSeconds,
        },
        (error?: Error) => {
          if (error) {
            reject(error);
            return;
          }
          resolve(syncedLocally(remote as unknown as Limiter, spec));
        },
      );
    });

  return {
    kind: 'postgres',
    limiter,
    close: async () => {
      await Promise.all(synced.map((local) => local.sync()));
      for (const local of synced) local.stop();
      await pool.end();
    },
  };
}
