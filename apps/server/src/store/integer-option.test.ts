import { describe, expect, it } from 'vitest';
import { nonNegativeInteger, positiveInteger } from './integer-option.ts';

describe('positiveInteger', () => {
  it('passes integers from 1 up', () => {
    expect(positiveInteger('n', 1)).toBe(1);
    expect(positiveInteger('n', Number.MAX_SAFE_INTEGER)).toBe(Number.MAX_SAFE_INTEGER);
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53])('rejects %s', (value) => {
    expect(() => positiveInteger('maxBatchSize', value)).toThrow(
      new RangeError(`maxBatchSize must be a positive integer, not ${value}`),
    );
  });
});

describe('nonNegativeInteger', () => {
  it('passes integers from 0 up', () => {
    expect(nonNegativeInteger('n', 0)).toBe(0);
    expect(nonNegativeInteger('n', 5000)).toBe(5000);
  });

  it.each([-1, 0.5, Number.NaN])('rejects %s', (value) => {
    expect(() => nonNegativeInteger('busyTimeoutMs', value)).toThrow(
      new RangeError(`busyTimeoutMs must be a non-negative integer, not ${value}`),
    );
  });
});
