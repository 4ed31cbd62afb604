import { expect, it } from 'vitest';
import * as z from 'zod/mini';
import { ErrorBody } from './error-body.ts';

it('accepts exactly the codes z.int32() accepts', () => {
  const values = [0, 40001, -(2 ** 31), 2 ** 31 - 1, 2 ** 31, -(2 ** 31) - 1, 1.5, Number.NaN];
  const more = [Number.POSITIVE_INFINITY, '40001', 40001n, null, undefined, -0, 2 ** 53];
  for (const value of [...values, ...more]) {
    expect(ErrorBody.safeParse({ error: value, message: 'm' }).success, String(value)).toBe(
      z.int32().safeParse(value).success,
    );
  }
  expect(ErrorBody.safeParse({ error: 40001 }).success).toBe(false);
});
