import { afterEach, describe, expect, it, vi } from 'vitest';
import { RateLimiterMemory, RateLimiterRes } from './flexible.ts';
import { SyncedLimiter } from './synced-limiter.ts';
import { MemoryTokenBuckets } from './token-bucket.ts';

// Two SyncedLimiters on one shared limiter stand for two instances on one database (the
// PostgreSQL version is in rate-limit-postgres.test.ts).

function instances(points: number) {
  const shared = new RateLimiterMemory({ points, duration: 60 });
  const options = { points, durationSeconds: 60, syncIntervalMs: 60_000 };
  return {
    shared,
    a: new SyncedLimiter(shared, options),
    b: new SyncedLimiter(shared, options),
  };
}

async function outcome(promise: Promise<RateLimiterRes>): Promise<'ok' | 'limited'> {
  try {
    await promise;
    return 'ok';
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return 'limited';
    throw rejection;
  }
}

describe('SyncedLimiter', () => {
  it('decides locally and adds its points to the shared count on sync', async () => {
    const { shared, a } = instances(5);
    for (let i = 0; i < 5; i++) expect(await outcome(a.consume('k'))).toBe('ok');
    expect(await outcome(a.consume('k'))).toBe('limited');
    expect(await shared.get('k')).toBeNull(); // nothing shared yet
    await a.sync();
    expect((await shared.get('k'))?.consumedPoints).toBe(6);
    expect((await a.get('k'))?.consumedPoints).toBe(6);
  });

  it('learns the other instances’ points when it syncs', async () => {
    const { a, b } = instances(10);
    for (let i = 0; i < 6; i++) await a.consume('token');
    await a.sync();
    expect(await outcome(b.consume('token'))).toBe('ok'); // b has not heard of a's 6 yet
    await b.sync(); // 7 shared
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await outcome(b.consume('token')));
    expect(results).toEqual(['ok', 'ok', 'ok', 'limited']);
    const state = await b.get('token');
    expect(state?.consumedPoints).toBe(11);
    expect(state?.msBeforeNext).toBeGreaterThan(50_000);
    expect(state?.msBeforeNext).toBeLessThanOrEqual(60_000);
  });

  it('counts penalties without refusing, and keys apart', async () => {
    const { a } = instances(2);
    for (let i = 0; i < 4; i++) expect((await a.penalty('x')).consumedPoints).toBe(i + 1);
    expect(await outcome(a.consume('y'))).toBe('ok');
    expect(await a.get('z')).toBeNull();
  });

  it('syncs on its own within the interval', async () => {
    const shared = new RateLimiterMemory({ points: 100, duration: 60 });
    const limiter = new SyncedLimiter(shared, {
      points: 100,
      durationSeconds: 60,
      syncIntervalMs: 20,
    });
    await limiter.consume('k', 3);
    await expect
      .poll(async () => (await shared.get('k'))?.consumedPoints, { timeout: 2000 })
      .toBe(3);
    limiter.stop();
  });
});

describe('SyncedLimiter over token buckets', () => {
  // 10 points refilling at 10/s (an interval of 100 ms), on a fake clock.
  function bucketInstances() {
    vi.useFakeTimers({ now: 1_000_000 });
    const shape = { points: 10, durationSeconds: 1 };
    const shared = new MemoryTokenBuckets(shape, () => Date.now());
    const options = { ...shape, refill: 'smooth' as const, syncIntervalMs: 60_000 };
    return { shared, a: new SyncedLimiter(shared, options), b: new SyncedLimiter(shared, options) };
  }
  afterEach(() => {
    vi.useRealTimers();
  });

  it('decides locally, refuses without counting, and refills with time', async () => {
    const { shared, a } = bucketInstances();
    for (let i = 0; i < 10; i++) expect(await outcome(a.consume('k'))).toBe('ok');
    expect(await outcome(a.consume('k'))).toBe('limited');
    expect(await outcome(a.consume('k'))).toBe('limited');
    await a.sync();
    expect((await shared.get('k'))?.consumedPoints).toBeCloseTo(10); // refusals not counted
    vi.advanceTimersByTime(100); // one point back
    expect(await outcome(a.consume('k'))).toBe('ok');
    expect(await outcome(a.consume('k'))).toBe('limited');
    vi.advanceTimersByTime(1000);
    expect((await a.get('k'))?.consumedPoints).toBeCloseTo(1); // the unsynced point
    await a.sync();
    vi.advanceTimersByTime(100);
    expect(await a.get('k')).toBeNull(); // full again, forgotten
  });

  it('shares one bucket between instances, overshooting by at most what one took unsynced', async () => {
    const { shared, a, b } = bucketInstances();
    for (let i = 0; i < 6; i++) await a.consume('token');
    await a.sync();
    await b.sync(); // b has nothing pending: it learns nothing yet
    for (let i = 0; i < 4; i++) expect(await outcome(b.consume('token'))).toBe('ok');
    await b.sync(); // shared: 10; b learns it
    expect(await outcome(b.consume('token'))).toBe('limited');
    expect((await shared.get('token'))?.consumedPoints).toBeCloseTo(10);
    // a still believes 6: it may take 4 more before its next sync (the bounded overshoot).
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await outcome(a.consume('token')));
    expect(results).toEqual(['ok', 'ok', 'ok', 'ok', 'limited']);
    await a.sync();
    expect((await a.get('token'))?.consumedPoints).toBeCloseTo(14);
    vi.advanceTimersByTime(500); // 5 points back: 9 in use
    expect(await outcome(a.consume('token'))).toBe('ok');
    expect(await outcome(a.consume('token'))).toBe('limited');
  });
});
