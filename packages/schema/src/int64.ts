import { isLosslessNumber } from 'lossless-json';
import * as z from 'zod/mini';
import { documented } from './documented.ts';

/** Smallest value of a signed 64-bit integer (−2^63). */
export const INT64_MIN = -(2n ** 63n);
/** Largest value of a signed 64-bit integer (2^63 − 1). */
export const INT64_MAX = 2n ** 63n - 1n;

const RANGE_MESSAGE = `must be an integer from ${INT64_MIN} to ${INT64_MAX}`;

/**
 * True when `value` is an exact signed 64-bit integer: a `bigint` in range, or a `number`
 * that is a safe integer (a larger `number` may already have been rounded, so it is refused).
 *
 * @example
 * isInt64(9007199254740993n); // true
 * isInt64(2 ** 53 + 2); // false: not a safe integer, use a bigint
 */
export function isInt64(value: unknown): value is bigint | number {
  if (typeof value === 'bigint') return value >= INT64_MIN && value <= INT64_MAX;
  return typeof value === 'number' && Number.isSafeInteger(value);
}

/**
 * A signed 64-bit integer, accepted as `bigint` or as a safe-integer `number`, always
 * produced as `bigint` so no digit is ever rounded.
 *
 * @example
 * Int64.parse(42); // 42n
 */
export const Int64 = documented(
  z.pipe(
    z.custom<bigint | number>(isInt64, {
      error: (issue) => `${RANGE_MESSAGE} (got ${describe(issue.input)})`,
    }),
    z.transform((value: bigint | number) => BigInt(value)),
  ),
  {
    type: 'integer',
    format: 'int64',
    // Exact bigints: the document is written with a lossless JSON serializer (openapi-file.ts),
    // so the file holds -9223372036854775808 and 9223372036854775807 digit for digit.
    minimum: INT64_MIN as unknown as number,
    maximum: INT64_MAX as unknown as number,
    description: `A signed 64-bit integer, ${INT64_MIN} to ${INT64_MAX}, accepted exactly.`,
  },
);

function describe(input: unknown): string {
  if (input === null) return 'null';
  // parseJson keeps a non-integer that a double would round to an integer as its text.
  if (isLosslessNumber(input)) return 'a non-integer number';
  if (Array.isArray(input)) return 'array';
  if (typeof input === 'bigint') return 'an integer out of range';
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return 'a number out of range';
    return Number.isInteger(input) ? 'an integer out of range' : 'a non-integer number';
  }
  return typeof input;
}
