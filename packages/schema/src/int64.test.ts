import { describe, expect, it } from 'vitest';
import * as classic from 'zod';
import { INT64_MAX, INT64_MIN, Int64, int64, isInt64 } from './int64.ts';
import { LosslessNumber } from './lossless-number.ts';

const message = (value: unknown) => {
  const result = Int64.safeParse(value);
  return result.success ? 'ok' : result.error.issues.map((issue) => issue.message).join('; ');
};

describe('isInt64', () => {
  it('accepts exactly -2^63 to 2^63 - 1 as bigints', () => {
    expect(INT64_MIN).toBe(-9223372036854775808n);
    expect(INT64_MAX).toBe(9223372036854775807n);
    expect([INT64_MIN, INT64_MAX, 0n].map(isInt64)).toEqual([true, true, true]);
    expect([INT64_MIN - 1n, INT64_MAX + 1n].map(isInt64)).toEqual([false, false]);
  });

  it('accepts a number only while it is a safe integer', () => {
    const safe = [0, -0, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER];
    expect(safe.map(isInt64)).toEqual([true, true, true, true]);
    const other = [2 ** 53, -(2 ** 53), 1.5, Number.NaN, Number.POSITIVE_INFINITY, '1', null];
    expect(other.map(isInt64)).toEqual(other.map(() => false));
  });
});

describe('Int64', () => {
  it('gives a bigint for every value it accepts, -0 as 0n', () => {
    expect(Int64.parse(42)).toBe(42n);
    expect(Int64.parse(-0)).toBe(0n);
    expect(Int64.parse(INT64_MIN)).toBe(INT64_MIN);
    expect(Int64.parse(INT64_MAX)).toBe(INT64_MAX);
  });

  it('says why it refuses a value, naming the value', () => {
    const range = 'must be an integer from -9223372036854775808 to 9223372036854775807';
    expect(message(undefined)).toBe('is required');
    expect(message(2 ** 60)).toBe(
      'a number above 2^53 - 1 (Number.MAX_SAFE_INTEGER) is not exact: pass a bigint (got 1152921504606846976)',
    );
    expect(message(-(2 ** 53) - 2)).toBe(
      'a number below -(2^53 - 1) (Number.MIN_SAFE_INTEGER) is not exact: pass a bigint (got -9007199254740994)',
    );
    expect(message(2 ** 63)).toBe(
      `${range}, as a bigint beyond 2^53 - 1 (got the number 9223372036854775808)`,
    );
    expect(message(INT64_MAX + 1n)).toBe(`${range} (got an integer out of range)`);
    expect(message(Number.NEGATIVE_INFINITY)).toBe(`${range} (got a number out of range)`);
    expect(message(0.5)).toBe(`${range} (got a non-integer number)`);
    expect(message(new LosslessNumber('1e-400'))).toBe(`${range} (got a non-integer number)`);
    expect(message('7')).toBe(`${range} (got a string)`);
  });

  it('behaves the same built with full zod', () => {
    const twin = int64({ unknown: classic.unknown });
    for (const value of [7, -0, INT64_MIN, INT64_MAX + 1n, 2 ** 60, 0.5, '7', undefined]) {
      const [mini, full] = [Int64.safeParse(value), twin.safeParse(value)];
      expect(full.data, String(value)).toBe(mini.data);
      expect(full.error?.issues[0]?.message, String(value)).toBe(mini.error?.issues[0]?.message);
    }
  });
});
