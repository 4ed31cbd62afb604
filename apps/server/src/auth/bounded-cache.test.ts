import { describe, expect, it } from 'vitest';
import { BoundedCache } from './bounded-cache.ts';

describe('BoundedCache', () => {
  it('returns a value until its expiry, then forgets it', () => {
    const cache = new BoundedCache<string, string>(10);
    cache.set('a', 'A', 1000);
    expect(cache.get('a', 999)).toBe('A');
    expect(cache.get('a', 1000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('never holds more than maxEntries, dropping the least recently used', () => {
    const cache = new BoundedCache<number, number>(3);
    for (let i = 0; i < 3; i++) cache.set(i, i, 10);
    expect(cache.get(0, 0)).toBe(0); // 0 is now the most recent
    cache.set(3, 3, 10);
    expect(cache.size).toBe(3);
    expect(cache.get(1, 0)).toBeUndefined();
    expect([0, 2, 3].map((k) => cache.get(k, 0))).toEqual([0, 2, 3]);
    for (let i = 100; i < 10_100; i++) cache.set(i, i, 10);
    expect(cache.size).toBe(3);
  });

  it('replaces an entry in place and can delete it', () => {
    const cache = new BoundedCache<string, number>(2);
    cache.set('a', 1, 10);
    cache.set('a', 2, 20);
    expect(cache.size).toBe(1);
    expect(cache.get('a', 15)).toBe(2);
    cache.delete('a');
    expect(cache.get('a', 0)).toBeUndefined();
  });

  it('refuses a cap below one', () => {
    expect(() => new BoundedCache(0)).toThrow(RangeError);
  });
});
