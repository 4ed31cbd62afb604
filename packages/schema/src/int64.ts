import * as z from 'zod/mini';
import { describeValue } from './describe-value.ts';
import { isLosslessNumber } from './lossless-number.ts';
import type { ZodFunctions } from './zod-functions.ts';

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
 * A signed 64-bit integer built with `z` (zod/mini or full zod), accepted as `bigint` or as a
 * safe-integer `number`, always produced as `bigint` so no digit is ever rounded.
 *
 * One function check on `z.unknown()` both refuses (the `custom` issue `z.custom` would add)
 * and converts (what `z.overwrite` does), so the browser bundle needs neither `z.custom` nor
 * `z.pipe(…, z.transform(…))`. zod sees an `unknown`, so the types are stated here: a `bigint` out.
 */
export function int64(zod: Pick<ZodFunctions, 'unknown'>) {
  return zod.unknown().check((payload) => {
    const input = payload.value;
    if (isInt64(input)) payload.value = BigInt(input);
    else payload.issues.push({ code: 'custom', input, message: int64Problem(input) });
  }) as unknown as z.ZodMiniType<bigint, bigint | number>;
}

/**
 * A signed 64-bit integer, accepted as `bigint` or as a safe-integer `number`, always
 * produced as `bigint` so no digit is ever rounded.
 *
 * @example
 * Int64.parse(42); // 42n
 */
export const Int64 = int64({ unknown: z.unknown });

/**
 * What is wrong with a value that is not an Int64, in the words of the error catalog.
 *
 * @example
 * int64Problem(2 ** 60); // within int64, but not exact as a number
 * // 'a number above 2^53 - 1 (Number.MAX_SAFE_INTEGER) is not exact: pass a bigint (got 1152921504606846976)'
 * int64Problem(2 ** 64); // outside int64 too
 * // 'must be an integer from -9223372036854775808 to 9223372036854775807, as a bigint beyond 2^53 - 1 (got the number 18446744073709551616)'
 */
function int64Problem(input: unknown): string {
  if (input === undefined) return 'is required';
  if (typeof input === 'number' && Number.isInteger(input)) {
    const digits = BigInt(input);
    // Within int64, but a double holds only 53 bits: 2 ** 60 + 1 is already 2 ** 60.
    if (isInt64(digits)) {
      const side =
        input > 0
          ? 'above 2^53 - 1 (Number.MAX_SAFE_INTEGER)'
          : 'below -(2^53 - 1) (Number.MIN_SAFE_INTEGER)';
      return `a number ${side} is not exact: pass a bigint (got ${digits})`;
    }
    // Outside int64 as well: name the range, and that beyond 2^53 - 1 only a bigint is exact.
    return `${RANGE_MESSAGE}, as a bigint beyond 2^53 - 1 (got the number ${digits})`;
  }
  return `${RANGE_MESSAGE} (got ${describe(input)})`;
}

function describe(input: unknown): string {
  if (typeof input === 'bigint') return 'an integer out of range';
  if (typeof input === 'number' && !Number.isFinite(input)) return 'a number out of range';
  // parseJson keeps a non-integer that a double would round to an integer as its text.
  if (typeof input === 'number' || isLosslessNumber(input)) return 'a non-integer number';
  return describeValue(input);
}
