import { afterEach, describe, expect, it, vi } from 'vitest';
import { OpenApiResponseValidator } from '../../test/support/openapi-validator.ts';
import { createTestApp, type TestApp, type TestAppOptions } from '../../test/support/test-app.ts';
import { ApiError } from '../api-error.ts';
import { generateToken } from '../auth/token-format.ts';
import { openSqlite } from '../store/sqlite/driver.ts';
import { AUTH_FAILURE_WINDOW_SECONDS, BURST_WINDOW_SECONDS, RateLimits } from './rate-limits.ts';

// The rate limits of the app (requests injected), counted in the SQLite file's rate_limits
// table (shared-counts.ts), the clock faked where a window matters.

const validator = new OpenApiResponseValidator();
const OTHER_TOKEN = 'second-consumer-token-0123456789';
const servers: TestApp[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) await server.dispose();
});

async function start(options: TestAppOptions): Promise<TestApp> {
  const server = await createTestApp(options);
  servers.push(server);
  return server;
}

interface Reply {
  status: number;
  headers: Headers;
  body: { error: number; message: string };
}

let nextId = 1;

async function post(
  server: TestApp,
  token: string,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const response = await server.fetch('/plants', {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...headers,
    },
    body: JSON.stringify({ id: nextId++, name: 'Fern' }),
  });
  const body = (await response.json()) as Reply['body'];
  validator.assertResponse('post', '/plants', response.status, body, response.headers);
  return { status: response.status, headers: response.headers, body };
}

function storedCount(server: TestApp): number {
  const db = openSqlite(server.databaseFile, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM plants').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

function expectTooManyRequests(reply: Reply, message: RegExp): void {
  expect(reply.status).toBe(429);
  expect(reply.body.error).toBe(42901);
  expect(reply.body.message).toMatch(message);
  const retryAfter = Number(reply.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(reply.body.message).toContain(
    `retry after ${retryAfter} second${retryAfter === 1 ? '' : 's'}`,
  );
}

describe('per-credential limit (burst allowance, then a rate per second)', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('lets a burst through, then answers 429 with Retry-After of the real wait, and stores nothing', async () => {
    vi.useFakeTimers({ toFake: ['Date'] }); // one window of a second, however slow the machine
    const server = await start({
      tokens: [`test-${'a'.repeat(30)}`, OTHER_TOKEN],
      rateLimit: { perSecond: 1, burst: 3, authFailuresPerMinute: 0 },
    });
    const replies = [];
    for (let i = 0; i < 3; i++) replies.push(await post(server, server.token));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
    // Every authenticated answer says where the credential stands: Remaining is what is left
    // of the allowance on top of the rate (2 here), back a minute after its first use; the
    // third request came from the second's rate, which gives points back within a second.
    expect(replies.map((r) => r.headers.get('x-ratelimit-limit'))).toEqual(['1', '1', '1']);
    expect(replies.map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(['1', '0', '0']);
    expect(replies.map((r) => Number(r.headers.get('x-ratelimit-reset')))).toEqual([
      BURST_WINDOW_SECONDS,
      BURST_WINDOW_SECONDS,
      1,
    ]);

    const refused = await post(server, server.token);
    expectTooManyRequests(refused, /^Too many requests for this credential/);
    // The next point comes back within a second: the wait is 1 s, not the allowance's minute.
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('x-ratelimit-limit')).toBe('1');
    expect(storedCount(server)).toBe(3);

    // Another credential has its own limit; the probes need none and carry no limit headers.
    expect((await post(server, OTHER_TOKEN)).status).toBe(200);
    const health = await server.fetch('/healthz');
    expect(health.status).toBe(200);
    expect(health.headers.get('x-ratelimit-limit')).toBeNull();
    await health.arrayBuffer();
    expect(storedCount(server)).toBe(4);
  });

  it('lets a refused client in once it waited the Retry-After it was given', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const server = await start({
      rateLimit: { perSecond: 2, burst: 2, authFailuresPerMinute: 0 },
    });
    expect((await post(server, server.token)).status).toBe(200);
    expect((await post(server, server.token)).status).toBe(200);
    const refused = await post(server, server.token);
    expect(refused.status).toBe(429);
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBe(1);
    vi.advanceTimersByTime(wait * 1000 - 1);
    expect((await post(server, server.token)).status).toBe(429);
    vi.advanceTimersByTime(1);
    expect((await post(server, server.token)).status).toBe(200);
    expect((await post(server, server.token)).status).toBe(200);
    expect((await post(server, server.token)).status).toBe(429);
  });

  it('carries the limit headers on error answers after the credential check too', async () => {
    const server = await start({
      rateLimit: { perSecond: 5, burst: 10, authFailuresPerMinute: 0 },
    });
    const response = await server.fetch('/plants', {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body: '{"id": 1}',
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('x-ratelimit-limit')).toBe('5');
    expect(response.headers.get('x-ratelimit-remaining')).toBe('4'); // of the allowance of 10 − 5
    await response.arrayBuffer();
  });

  it('refuses a large body before reading it', async () => {
    const server = await start({ rateLimit: { perSecond: 1, burst: 1, authFailuresPerMinute: 0 } });
    expect((await post(server, server.token)).status).toBe(200);
    const response = await server.fetch('/plants', {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body: 'x'.repeat(1024 * 1024), // over the body limit, and not JSON
    });
    expect(response.status).toBe(429);
    await response.arrayBuffer();
  });

  it('is off with 0, and then sends no limit headers', async () => {
    const server = await start({ rateLimit: { perSecond: 0, burst: 1, authFailuresPerMinute: 0 } });
    const replies = await Promise.all(Array.from({ length: 10 }, () => post(server, server.token)));
    expect(new Set(replies.map((r) => r.status))).toEqual(new Set([200]));
    expect(replies[0]?.headers.get('x-ratelimit-limit')).toBeNull();
  });
});

describe('refused-credential limit per client address', () => {
  it('throttles token guessing: 401s, then 429 for an unknown token; a valid one is served', async () => {
    const server = await start({
      metrics: true,
      rateLimit: { perSecond: 1000, burst: 1000, authFailuresPerMinute: 3 },
    });
    const guesses = [];
    for (let i = 0; i < 3; i++) guesses.push(await post(server, `guess-${i}-0123456789abcdef`));
    expect(guesses.map((g) => g.status)).toEqual([401, 401, 401]);

    expectTooManyRequests(
      await post(server, 'guess-3-0123456789abcdef'),
      /^Too many requests with a refused credential from this address/,
    );
    // Past its budget an unknown token is refused before it is looked up; a valid one (known to
    // this process) is served.
    expect((await post(server, server.token)).status).toBe(200);
    // No credential at all is a 401, and spends nothing.
    const bare = await server.fetch('/plants', { method: 'POST' });
    expect(bare.status).toBe(401);
    await bare.arrayBuffer();
    expectTooManyRequests(await post(server, 'guess-4-0123456789abcdef'), /refused credential/);
    expect(storedCount(server)).toBe(1);

    // Routes without a credential are not limited.
    expect((await server.fetch('/healthz')).status).toBe(200);

    const metrics = await server.metrics?.registry.metrics();
    expect(metrics).toMatch(/^plant_store_rate_limited_total\{limit="address"\} 2$/m);
  });

  it('answers an address past its budget 429 before any token lookup', async () => {
    const server = await start({
      rateLimit: { perSecond: 1000, burst: 1000, authFailuresPerMinute: 2 },
      trustProxy: ['127.0.0.1'],
    });
    const from = (address: string) => ({ 'x-forwarded-for': address });
    for (let i = 0; i < 2; i++) {
      expect((await post(server, generateToken(), from('198.51.100.1'))).status).toBe(401);
    }
    // From now on every token lookup fails: its table is gone.
    const db = openSqlite(server.databaseFile);
    db.exec('ALTER TABLE tokens RENAME TO tokens_away');
    try {
      for (let i = 0; i < 3; i++) {
        const refused = await post(server, generateToken(), from('198.51.100.1'));
        expectTooManyRequests(refused, /^Too many requests with a refused credential/);
      }
      // The same unknown token from an address with budget left is looked up, and that fails.
      const looked = await server.fetch('/plants', {
        method: 'POST',
        headers: { authorization: `Bearer ${generateToken()}`, ...from('198.51.100.2') },
      });
      expect(looked.status).toBeGreaterThanOrEqual(500);
      await looked.arrayBuffer();
    } finally {
      db.exec('ALTER TABLE tokens_away RENAME TO tokens');
      db.close();
    }
  });

  it('gives the address its budget back when the window ends', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const server = await start({
        rateLimit: { perSecond: 1000, burst: 1000, authFailuresPerMinute: 1 },
      });
      expect((await post(server, 'guess-a-0123456789abcdef')).status).toBe(401);
      const refused = await post(server, 'guess-b-0123456789abcdef');
      expectTooManyRequests(refused, /refused credential/);
      expect(Number(refused.headers.get('retry-after'))).toBe(AUTH_FAILURE_WINDOW_SECONDS);
      vi.advanceTimersByTime(AUTH_FAILURE_WINDOW_SECONDS * 1000);
      expect((await post(server, 'guess-c-0123456789abcdef')).status).toBe(401);
    } finally {
      vi.useRealTimers();
    }
  });

  it('counts concurrent guesses exactly', async () => {
    const server = await start({
      rateLimit: { perSecond: 1000, burst: 1000, authFailuresPerMinute: 5 },
    });
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(server, `concurrent-guess-${i}-0123456789`)),
    );
    const statuses = replies.map((reply) => reply.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
  });

  it('does not count successful requests', async () => {
    const server = await start({
      rateLimit: { perSecond: 1000, burst: 1000, authFailuresPerMinute: 2 },
    });
    for (let i = 0; i < 5; i++) expect((await post(server, server.token)).status).toBe(200);
    expect((await post(server, 'wrong-token-0123456789abcdef')).status).toBe(401);
    expect((await post(server, server.token)).status).toBe(200);
  });

  it('ignores X-Forwarded-For unless proxies are trusted', async () => {
    const direct = await start({
      rateLimit: { perSecond: 1000, burst: 1000, authFailuresPerMinute: 1 },
    });
    expect(
      (await post(direct, 'guess-a-0123456789abcdef', { 'x-forwarded-for': '198.51.100.1' }))
        .status,
    ).toBe(401);
    // A guesser cannot escape its block by claiming another address.
    expect(
      (await post(direct, 'guess-b-0123456789abcdef', { 'x-forwarded-for': '198.51.100.2' }))
        .status,
    ).toBe(429);
  });

  it('with TRUST_PROXY=127.0.0.1, limits the address the proxy saw', async () => {
    const proxied = await start({
      trustProxy: ['127.0.0.1'],
      rateLimit: { perSecond: 1000, burst: 1000, authFailuresPerMinute: 1 },
    });
    // The proxy appends the peer it saw; what the client put before that is not trusted.
    const from = (client: string, spoofed = '') => ({
      'x-forwarded-for': spoofed ? `${spoofed}, ${client}` : client,
    });
    expect((await post(proxied, 'guess-a-0123456789abcdef', from('198.51.100.1'))).status).toBe(
      401,
    );
    expect((await post(proxied, 'guess-b-0123456789abcdef', from('198.51.100.1'))).status).toBe(
      429,
    );
    expect(
      (await post(proxied, 'guess-c-0123456789abcdef', from('198.51.100.1', '192.0.2.9'))).status,
    ).toBe(429);
    // Another client behind the same proxy is not blocked.
    expect((await post(proxied, proxied.token, from('198.51.100.2'))).status).toBe(200);
  });

  it('groups IPv6 clients by /64', async () => {
    const proxied = await start({
      trustProxy: ['127.0.0.1'],
      rateLimit: { perSecond: 1000, burst: 1000, authFailuresPerMinute: 1 },
    });
    const from = (client: string) => ({ 'x-forwarded-for': client });
    expect((await post(proxied, 'guess-a-0123456789abcdef', from('2001:db8:1:2::10'))).status).toBe(
      401,
    );
    expect((await post(proxied, 'guess-b-0123456789abcdef', from('2001:db8:1:2::99'))).status).toBe(
      429,
    );
    expect((await post(proxied, proxied.token, from('2001:db8:1:3::10'))).status).toBe(200);
  });
});

describe('RateLimits in memory', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Takes `count` requests of `name` at once: how many passed, and the first refusal. */
  async function take(limits: RateLimits, name: string, count: number) {
    let passed = 0;
    let refusal: ApiError | undefined;
    for (let i = 0; i < count; i++) {
      try {
        await limits.consumeCredential(name);
        passed += 1;
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        refusal ??= error;
      }
    }
    return { passed, refusal };
  }

  it('at the defaults: 200 at once, then 100 a second, and Retry-After of at most 2 s', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const limits = await RateLimits.create({
      perSecond: 100,
      burst: 200,
      authFailuresPerMinute: 30,
    });
    expect(await limits.consumeCredential('env#1')).toEqual({
      'X-RateLimit-Limit': '100',
      'X-RateLimit-Remaining': '99',
      'X-RateLimit-Reset': String(BURST_WINDOW_SECONDS),
    });
    const burst = await take(limits, 'env#1', 250);
    expect(burst.passed).toBe(199);
    expect(burst.refusal?.kind).toBe('rateLimited');
    expect(Number(burst.refusal?.headers?.['Retry-After'])).toBe(1);
    for (let second = 1; second <= 3; second++) {
      vi.advanceTimersByTime(1000);
      const next = await take(limits, 'env#1', 150);
      expect(next.passed).toBe(100);
      expect(Number(next.refusal?.headers?.['Retry-After'])).toBeLessThanOrEqual(2);
    }
    // Another credential is not affected.
    expect((await take(limits, 'env#2', 200)).passed).toBe(200);
  });

  it('with a burst below the rate: the burst at once, refilled every burst/rate seconds', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const limits = await RateLimits.create({ perSecond: 20, burst: 5, authFailuresPerMinute: 0 });
    const first = await take(limits, 'env#1', 8);
    expect(first.passed).toBe(5);
    expect(first.refusal?.headers?.['Retry-After']).toBe('1');
    expect(first.refusal?.headers?.['X-RateLimit-Remaining']).toBe('0');
    vi.advanceTimersByTime(250);
    expect((await take(limits, 'env#1', 8)).passed).toBe(5);
  });

  it('counts refused credentials per address, and tells the metrics of each 429', async () => {
    const limited: string[] = [];
    const limits = await RateLimits.create(
      { perSecond: 0, burst: 1, authFailuresPerMinute: 2 },
      undefined,
      { onLimited: (limit) => limited.push(limit) },
    );
    await limits.recordAuthFailure('203.0.113.7');
    await limits.recordAuthFailure('203.0.113.7');
    await expect(async () => limits.recordAuthFailure('203.0.113.7')).rejects.toMatchObject({
      kind: 'rateLimited',
    });
    await limits.recordAuthFailure('198.51.100.1');
    expect(limited).toEqual(['address']);
    // The per-credential limit is off: no headers, never refused.
    expect(await limits.consumeCredential('env#1')).toBeUndefined();
  });
});
