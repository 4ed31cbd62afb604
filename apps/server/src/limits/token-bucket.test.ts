import { describe, expect, it } from 'vitest';
import { RateLimiterRes } from './flexible.ts';
import { MemoryTokenBuckets } from './token-bucket.ts';

// The token bucket on an injected clock: no real waiting.

function bucket(points: number, perSecond: number) {
  const clock = { now: 1_000_000 };
  const buckets = new MemoryTokenBuckets(
    { points, durationSeconds: points / perSecond },
    () => clock.now,
  );
  return { clock, buckets };
}

async function refusal(promise: Promise<RateLimiterRes>): Promise<RateLimiterRes | 'ok'> {
  try {
    await promise;
    return 'ok';
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return rejection;
    throw rejection;
  }
}

describe('MemoryTokenBuckets', () => {
  it('lets the burst through at once, then one request per interval', async () => {
    const { clock, buckets } = bucket(200, 100);
    for (let i = 0; i < 200; i++) expect(await refusal(buckets.consume('k'))).toBe('ok');
    const refused = await refusal(buckets.consume('k'));
    expect(refused).not.toBe('ok');
    // The real wait: one interval (10 ms at 100/s), not a window's end.
    expect((refused as RateLimiterRes).msBeforeNext).toBeCloseTo(10);
    expect((refused as RateLimiterRes).remainingPoints).toBeCloseTo(0);
    clock.now += 10;
    expect(await refusal(buckets.consume('k'))).toBe('ok');
    expect(await refusal(buckets.consume('k'))).not.toBe('ok');
    // Sustained: 100 per simulated second, for a minute, every one let through.
    let allowed = 0;
    for (let ms = 0; ms < 60_000; ms += 10) {
      clock.now += 10;
      if ((await refusal(buckets.consume('k'))) === 'ok') allowed += 1;
    }
    expect(allowed).toBe(6000);
  });

  it('does not charge a refused request', async () => {
    const { clock, buckets } = bucket(2, 1);
    await buckets.consume('k');
    await buckets.consume('k');
    for (let i = 0; i < 50; i++) expect(await refusal(buckets.consume('k'))).not.toBe('ok');
    clock.now += 1000;
    expect(await refusal(buckets.consume('k'))).toBe('ok');
  });

  it('reports remaining points and the time until the bucket is full', async () => {
    const { clock, buckets } = bucket(10, 5); // an interval of 200 ms
    const first = await buckets.consume('k', 3);
    expect(first.remainingPoints).toBeCloseTo(7);
    expect(first.msBeforeNext).toBeCloseTo(600);
    clock.now += 100;
    const later = await buckets.get('k');
    expect(later?.consumedPoints).toBeCloseTo(2.5);
    expect(later?.msBeforeNext).toBeCloseTo(500);
    clock.now += 500;
    expect(await buckets.get('k')).toBeNull(); // full again: forgotten
  });

  it('counts a penalty even beyond the bucket, and keys apart', async () => {
    const { buckets } = bucket(2, 1);
    expect((await buckets.penalty('x', 5)).consumedPoints).toBeCloseTo(5);
    const refused = await refusal(buckets.consume('x'));
    expect((refused as RateLimiterRes).msBeforeNext).toBeCloseTo(4000);
    expect(await refusal(buckets.consume('y'))).toBe('ok');
  });

  it('refuses a shape that cannot refill', () => {
    expect(() => new MemoryTokenBuckets({ points: 0, durationSeconds: 1 })).toThrow(RangeError);
  });
});
