import { describe, expect, it } from 'vitest';
import { benchId, scatter, seedId } from './ids.ts';

describe('benchmark ids', () => {
  it('are unique, and seeded and request ids never collide', () => {
    const seen = new Set<bigint>();
    for (let n = 0; n < 50_000; n++) {
      seen.add(seedId(n));
      seen.add(benchId(n));
    }
    expect(seen.size).toBe(100_000);
  });

  it('are safe integers spread over the key space', () => {
    const ids = Array.from({ length: 1000 }, (_, n) => benchId(n));
    for (const id of ids) expect(id <= BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
    const aboveHalf = ids.filter((id) => id > 2n ** 50n).length;
    expect(aboveHalf).toBeGreaterThan(400);
    expect(aboveHalf).toBeLessThan(600);
  });

  it('refuses a counter out of range', () => {
    expect(() => scatter(-1)).toThrow(RangeError);
    expect(() => scatter(2 ** 50)).toThrow(RangeError);
  });
});
