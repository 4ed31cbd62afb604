import { describe, expect, it } from 'vitest';
import { MAX_DURATION_MS, parseDuration } from './duration.ts';

describe('parseDuration', () => {
  it('reads each unit and sums', () => {
    expect(parseDuration('45s')).toBe(45_000);
    expect(parseDuration('90m')).toBe(5_400_000);
    expect(parseDuration('12h')).toBe(43_200_000);
    expect(parseDuration('30d')).toBe(2_592_000_000);
    expect(parseDuration('2w')).toBe(1_209_600_000);
    expect(parseDuration('1d12h')).toBe(129_600_000);
    expect(parseDuration('3650d')).toBe(MAX_DURATION_MS);
  });

  it('refuses other forms, zero and more than ten years', () => {
    for (const bad of ['', '30', 'd', '1.5h', '-1d', '1 d', '1D', '1y', 'never', '1d 2h']) {
      expect(() => parseDuration(bad), bad).toThrow(/use a number and a unit/);
    }
    expect(() => parseDuration('0s')).toThrow(/must be > 0/);
    expect(() => parseDuration('3651d')).toThrow(/at most 3650d/);
    expect(() => parseDuration('99999999999999999999d')).toThrow(/at most 3650d/);
  });
});
