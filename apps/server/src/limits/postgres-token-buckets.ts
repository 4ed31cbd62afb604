import type { Pool } from 'pg';
import type { RateLimiterRes } from './flexible.ts';
import type { Limiter, LimiterSpec } from './rate-limits.ts';
import { type BucketShape, bucketInterval, bucketRefusal, bucketResult } from './token-bucket.ts';

/** Rows of buckets full for this long are deleted (at most once per this interval). */
const SWEEP_INTERVAL_MS = 60_000;

/** The database's clock in epoch ms: every instance measures against the same clock. */
const NOW_MS = '(extract(epoch FROM now())::float8 * 1000)';

/**
 * Token buckets in a PostgreSQL table (GCRA: one row per key holding `full_at`, the epoch ms at
 * which its bucket is full again, on the database's clock), so that every instance shares
 * them. Each operation is one statement; `penalty` is what `SyncedLimiter` calls once per key
 * per sync interval. Table: `table` (key, full_at), created when missing.
 *
 * @example
 * const buckets = await postgresTokenBuckets(pool, 'rate_limit_rl_token_bucket', spec);
 * await buckets.penalty('env#1', 12); // the shared level, everyone's points included
 */
export async function postgresTokenBuckets(
  pool: Pool,
  table: string,
  spec: LimiterSpec,
): Promise<Limiter> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(table)) throw new Error(`bad table name ${table}`);
  const shape: BucketShape = { points: spec.points, durationSeconds: spec.durationSeconds };
  const interval = bucketInterval(shape);
  await pool.query(
    `CREATE TABLE IF NOT EXISTS ${table} (key varchar(255) PRIMARY KEY, full_at float8 NOT NULL)`,
  );
  const add = `INSERT INTO ${table} AS b (key, full_at) VALUES ($1, ${NOW_MS} + $2)
    ON CONFLICT (key) DO UPDATE SET full_at = GREATEST(b.full_at + $2, EXCLUDED.full_at)`;
  const level = `full_at - ${NOW_MS} AS level`;
  let sweptAt = Date.now();
  const sweep = () => {
    if (Date.now() - sweptAt < SWEEP_INTERVAL_MS) return;
    sweptAt = Date.now();
    pool
      .query(`DELETE FROM ${table} WHERE full_at < ${NOW_MS} - ${SWEEP_INTERVAL_MS}`)
      .catch(() => undefined); // the next sweep retries
  };
  const levelOf = async (key: string): Promise<number> => {
    const { rows } = await pool.query<{ level: number }>(
      `SELECT ${level} FROM ${table} WHERE key = $1`,
      [key],
    );
    return Math.max(0, rows[0]?.level ?? 0);
  };

  return {
    points: spec.points,
    async consume(key, points = 1): Promise<RateLimiterRes> {
      const cost = points * interval;
      // Takes only when the result fits the bucket (the slack matches `bucketFits`).
      const { rows } = await pool.query<{ level: number }>(
        `${add} WHERE GREATEST(b.full_at + $2, EXCLUDED.full_at) - ${NOW_MS} <= $3
         RETURNING ${level}`,
        [key, cost, spec.points * interval + interval / 1000],
      );
      const taken = rows[0];
      if (taken !== undefined) return bucketResult(shape, taken.level);
      // Refused: not taken. (A bucket that drained in between is refused once more; the
      // refusal then says to retry at once.)
      throw bucketRefusal(shape, await levelOf(key), points);
    },
    async penalty(key, points = 1): Promise<RateLimiterRes> {
      sweep();
      const { rows } = await pool.query<{ level: number }>(`${add} RETURNING ${level}`, [
        key,
        points * interval,
      ]);
      return bucketResult(shape, rows[0]?.level ?? 0);
    },
    async get(key): Promise<RateLimiterRes | null> {
      const now = await levelOf(key);
      return now > 0 ? bucketResult(shape, now) : null;
    },
  };
}
