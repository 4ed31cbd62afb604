import { describe, expect, it } from 'vitest';
import { median, slope } from './stats.ts';

describe('median', () => {
  it('takes the middle value, or the mean of the two middle ones', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
  });

  it('refuses an empty list', () => {
    expect(() => median([])).toThrow(RangeError);
  });
});

describe('slope', () => {
  it('is the least-squares trend', () => {
    expect(slope([0, 1, 2, 3], [10, 12, 14, 16])).toBeCloseTo(2);
    expect(slope([0, 1, 2], [5, 5, 5])).toBe(0);
    expect(slope([0, 10, 20], [3, 1, 2])).toBeCloseTo(-0.05);
  });
});
