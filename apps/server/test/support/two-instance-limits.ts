import { beforeAll, describe, expect, it } from 'vitest';
import { LEASE_SHARE } from '../../src/limits/shared-counts.ts';
import { type SpawnedServer, spawnServer } from './spawn-server.ts';

// The rate limits of two server processes on one store: one limit for both, within 10 % of the
// burst. What the SQLite and the PostgreSQL tests (e2e/rate-limit-*.test.ts) both check, each
// starting the pair on its own store.

/** The URLs of the two processes, once started. */
export type InstancePair = readonly [string, string];

/** The credentials the processes accept: each test counts against one of its own. */
export const LIMIT_TOKENS = {
  burst: 'limit-token-burst-0123456789abcdef',
  even: 'limit-token-even-0123456789abcdef',
  remaining: 'limit-token-remaining-0123456789abcdef',
  wait: 'limit-token-wait-0123456789abcdef',
  valid: 'limit-token-valid-0123456789abcdef',
  /** For the test a store has of its own. */
  own: 'limit-token-own-0123456789abcdef',
} as const;

/**
 * Starts pairs of processes of the real entry point, each pair on one store.
 *
 * @example
 * const instances = twoInstances();
 * const [a, b] = await instances.start(file, { RATE_LIMIT_PER_SECOND: '5' });
 * await instances.stop(); // in afterAll
 */
export function twoInstances() {
  const spawned: SpawnedServer[] = [];
  return {
    /** Two processes on `databaseUrl` with `env`'s limits; resolves once both listen. */
    async start(databaseUrl: string, env: Record<string, string>): Promise<[string, string]> {
      const pair = [0, 1].map(() =>
        spawnServer({
          PORT: '0',
          DATABASE_URL: databaseUrl,
          PLANT_STORE_TOKENS: Object.values(LIMIT_TOKENS).join(','),
          ...env,
        }),
      );
      spawned.push(...pair);
      const [a = '', b = ''] = await Promise.all(pair.map((server) => server.ready));
      return [a, b];
    },
    /** SIGTERM to every process started; resolves once all have exited. */
    async stop(): Promise<void> {
      for (const server of spawned) server.child.kill('SIGTERM');
      await Promise.all(spawned.map((server) => server.exited));
    },
  };
}

let nextId = 1;

/** POSTs a new plant to `url` with `bearer`; the response, its body read. */
export async function create(url: string, bearer: string): Promise<Response> {
  const response = await fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: nextId++, name: 'Fern' }),
  });
  await response.arrayBuffer();
  return response;
}

/** `count` creates at once, alternating between the processes: how many passed, were refused, and the seconds it took. */
async function burst(urls: InstancePair, bearer: string, count: number) {
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

/**
 * The test that 100 creates at once, alternating between the pair, let one burst of 50 through
 * for both: at least 50 less the leases left unused and at most `most(seconds)`, the seconds the burst took (a burst slowed
 * by a busy machine meets more of the rate).
 */
export function itLetsOneBurstThrough(
  label: string,
  urls: () => InstancePair,
  bearer: string,
  most: (seconds: number) => number,
): void {
  it('let one burst through for both, within 10 % of the burst', async () => {
    const { passed, refused, seconds } = await burst(urls(), bearer, 100);
    console.log(`${label}: ${passed} of 100 passed in ${seconds.toFixed(2)} s`);
    expect(passed + refused).toBe(100);
    // Each process's lease its clients left unused is refused to the other's until the window ends.
    expect(passed).toBeGreaterThanOrEqual(50 - 2 * Math.floor(50 / LEASE_SHARE));
    expect(passed).toBeLessThanOrEqual(most(seconds));
  }, 30_000);
}

/** The test that a client refused by one of the pair is admitted by either once it waited the Retry-After it was given. */
export function itAdmitsAfterRetryAfter(urls: () => InstancePair): void {
  it('admit a client that waited the Retry-After it was given, on either', async () => {
    const results: number[] = [];
    for (let trial = 0; trial < 4; trial++) {
      const [a, b] = urls();
      const [here, there] = trial % 2 === 0 ? [a, b] : [b, a];
      const refusal = await refusalFrom(here, LIMIT_TOKENS.wait);
      const wait = Number(refusal?.headers.get('retry-after'));
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(2);
      await new Promise((resolve) => setTimeout(resolve, wait * 1000));
      results.push((await create(there, LIMIT_TOKENS.wait)).status);
    }
    console.log(`waited Retry-After, then: ${results.join(' ')}`);
    expect(results).toEqual([200, 200, 200, 200]);
  }, 60_000);
}

/**
 * The scenario every store runs: a pair at 10/s with a burst of 50 and a budget of 30 refused
 * credentials shares the burst, the Remaining count and the budget. `start` starts the pair on
 * the store with the given limits; `storeTests` adds the store's own tests on the same pair.
 *
 * @example
 * describeSharedLimits('two processes on one SQLite file', (env) => instances.start(file, env));
 */
export function describeSharedLimits(
  label: string,
  start: (env: Record<string, string>) => Promise<[string, string]>,
  storeTests: (urls: () => InstancePair) => void = () => undefined,
): void {
  describe(`${label} at 10/s with a burst of 50 and a budget of 30 refused credentials`, () => {
    let pair: InstancePair;
    const urls = () => pair;
    beforeAll(async () => {
      pair = await start({
        RATE_LIMIT_PER_SECOND: '10',
        RATE_LIMIT_BURST: '50',
        AUTH_FAILURES_PER_MINUTE: '30',
      });
    });

    // The allowance of 40 once, and 10 per second the burst took.
    itLetsOneBurstThrough(`${label}, 10/s burst 50`, urls, LIMIT_TOKENS.even, (seconds) => {
      return 55 + 10 * Math.floor(seconds);
    });

    it('say the same Remaining on both', async () => {
      const remaining: string[] = [];
      for (let i = 0; i < 6; i++) {
        const reply = await create(pair[i % 2] ?? '', LIMIT_TOKENS.remaining);
        expect(reply.status).toBe(200);
        remaining.push(reply.headers.get('x-ratelimit-remaining') ?? '');
      }
      expect(remaining).toEqual(['39', '38', '37', '36', '35', '34']);
    });

    storeTests(urls);

    // Last: the address is spent for the rest of the window.
    it('share the budget of refused credentials, then refuse unknown tokens, not valid ones', async () => {
      const guesses = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          create(pair[i % 2] ?? '', `guess-${i}-0123456789abcdef`),
        ),
      );
      const statuses = guesses.map((reply) => reply.status);
      const unauthorized = statuses.filter((status) => status === 401).length;
      expect(unauthorized).toBe(30);
      expect(statuses.filter((status) => status === 429)).toHaveLength(30);
      // Spent on both processes: an unknown token waits out the window, a valid one is served.
      expect((await create(pair[0], 'guess-x-0123456789abcdef')).status).toBe(429);
      expect((await create(pair[1], 'guess-y-0123456789abcdef')).status).toBe(429);
      expect((await create(pair[0], LIMIT_TOKENS.valid)).status).toBe(200);
      expect((await create(pair[1], LIMIT_TOKENS.valid)).status).toBe(200);
    });
  });
}
