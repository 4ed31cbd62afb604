import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CLIENT_DEFAULTS } from './options.ts';
import { PACING_RESERVE, Pacer, type RateLimitReading, readRateLimit } from './pacer.ts';
import { nextRetryDelay, wait } from './retry.ts';

// The pacer on vitest's fake clock against a model of the server's limit (a token bucket: a
// burst, then a rate per second, as apps/server/src/limits/rate-limits.ts): no real waiting.

beforeEach(() => {
  vi.useFakeTimers({ now: 0, loopLimit: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

interface Answer {
  readonly status: 200 | 429;
  readonly reading: RateLimitReading | undefined;
}

/** A server with a token bucket of `burst` refilled at `perSecond`, answering after `latencyMs`. */
function modelServer(
  perSecond: number,
  burst: number,
  latencyMs: number | (() => number) = 5,
  headers = true,
) {
  const latency = typeof latencyMs === 'number' ? () => latencyMs : latencyMs;
  const interval = 1000 / perSecond;
  let fullAt = 0;
  const counts = { ok: 0, refused: 0 };
  const attempt = async (): Promise<Answer> => {
    await wait(latency() / 2); // on the way in
    const now = Date.now();
    const level = Math.max(0, fullAt - now);
    const fits = level + interval <= burst * interval + 1e-6;
    if (fits) fullAt = now + level + interval;
    const after = fits ? level + interval : level;
    const reading = headers
      ? {
          limit: perSecond,
          remaining: Math.floor(burst - after / interval + 1e-9),
          reset: Math.ceil(after / 1000),
        }
      : undefined;
    await wait(latency() / 2); // on the way out
    counts[fits ? 'ok' : 'refused'] += 1;
    return { status: fits ? 200 : 429, reading };
  };
  return { attempt, counts };
}

const readingOf = (answer: Answer) => ({
  reading: answer.reading,
  refused: answer.status === 429,
});

/** Sends `total` requests through `pacer` with `concurrency` in flight; resolves with the time taken. */
async function bulk(
  pacer: Pacer,
  attempt: () => Promise<Answer>,
  total: number,
  concurrency: number,
): Promise<number> {
  let next = 0;
  const worker = async () => {
    while (next < total) {
      next += 1;
      await pacer.send(attempt, readingOf);
    }
  };
  const done = Promise.all(Array.from({ length: concurrency }, worker));
  await vi.runAllTimersAsync();
  await done;
  return Date.now();
}

describe('Pacer', () => {
  it('uses the burst, then sends at the sustained rate: 300 requests at 50/s, none refused', async () => {
    const server = modelServer(50, 200);
    const elapsed = await bulk(new Pacer(wait), server.attempt, 300, 8);
    expect(server.counts).toEqual({ ok: 300, refused: 0 });
    // 200 at once, then 100 at 50/s: 2 s, plus the reserve kept back.
    expect(elapsed).toBeGreaterThanOrEqual(1900);
    expect(elapsed).toBeLessThan(2400);
  });

  it('keeps a small burst and a high concurrency unrefused: 2,000 at 100/s, burst 10, 32 in flight', async () => {
    const server = modelServer(100, 10, 20);
    const elapsed = await bulk(new Pacer(wait), server.attempt, 2_000, 32);
    expect(server.counts).toEqual({ ok: 2_000, refused: 0 });
    expect(elapsed / 1000).toBeGreaterThan(19);
    expect(elapsed / 1000).toBeLessThan(21);
  });

  it('absorbs a jittery network path: 3,000 at 100/s, burst 200, latency 1–40 ms', async () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const server = modelServer(100, 200, () => 1 + random() * 39);
    const elapsed = await bulk(new Pacer(wait), server.attempt, 3_000, 8);
    expect(server.counts).toEqual({ ok: 3_000, refused: 0 });
    expect(elapsed / 1000).toBeLessThan(29);
  });

  it('does not pace a server that sends no rate-limit headers', async () => {
    const server = modelServer(50, 10, 5, false);
    const elapsed = await bulk(new Pacer(wait), server.attempt, 40, 4);
    expect(server.counts.ok + server.counts.refused).toBe(40);
    expect(server.counts.refused).toBeGreaterThan(0);
    expect(elapsed).toBeLessThan(100);
  });

  it('paces after a 429 even when its headers said requests were left', async () => {
    const sleeps: number[] = [];
    const pacer = new Pacer(async (ms) => {
      sleeps.push(ms);
    });
    const reading = { limit: 10, remaining: 50, reset: 5 };
    await pacer.send(async () => ({ status: 200, reading }) as Answer, readingOf);
    await pacer.send(async () => ({ status: 200, reading }) as Answer, readingOf);
    expect(sleeps).toEqual([]); // 50 left: no wait
    await pacer.send(async () => ({ status: 429, reading }) as Answer, readingOf);
    const empty = { limit: 10, remaining: 0, reset: 1 };
    for (let i = 0; i < 3; i++) {
      await pacer.send(async () => ({ status: 200, reading: empty }) as Answer, readingOf);
    }
    // After the 429: one request per 100 ms (the first at once; the clock stands still here).
    expect(sleeps).toEqual([100, 200]);
    expect(PACING_RESERVE).toBeGreaterThan(0);
  });
});

describe('readRateLimit', () => {
  it('reads the three headers, or nothing when the limit is absent or not a number', () => {
    const headers = (values: Record<string, string>) => new Headers(values);
    expect(
      readRateLimit(
        headers({
          'x-ratelimit-limit': '100',
          'x-ratelimit-remaining': '7',
          'x-ratelimit-reset': '2',
        }),
      ),
    ).toEqual({ limit: 100, remaining: 7, reset: 2 });
    expect(readRateLimit(headers({}))).toBeUndefined();
    expect(
      readRateLimit(headers({ 'x-ratelimit-limit': 'lots', 'x-ratelimit-remaining': '1' })),
    ).toBeUndefined();
    expect(
      readRateLimit(headers({ 'x-ratelimit-limit': '0', 'x-ratelimit-remaining': '1' })),
    ).toBeUndefined();
  });
});

describe('the default retry policy', () => {
  it('waits a 1 s Retry-After (and up to 10 s) instead of failing', () => {
    const policy = {
      retries: CLIENT_DEFAULTS.retries,
      retryDelayMs: CLIENT_DEFAULTS.retryDelayMs,
      maxRetryDelayMs: CLIENT_DEFAULTS.maxRetryDelayMs,
    };
    const tooMany = (retryAfter: number) =>
      ({
        kind: 'response',
        status: 429,
        statusText: '',
        contentType: undefined,
        retryAfter,
        headers: new Headers(),
        text: '',
      }) as const;
    expect(nextRetryDelay(policy, tooMany(1), 1)).toBe(1000);
    expect(nextRetryDelay(policy, tooMany(10), 2)).toBe(10_000);
  });
});
