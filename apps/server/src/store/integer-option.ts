/**
 * `value` when it is a safe integer ≥ 1; otherwise a RangeError naming the option.
 *
 * @example
 * positiveInteger('maxBatchSize', 1000); // 1000
 * positiveInteger('maxBatchSize', 0); // throws RangeError: maxBatchSize must be a positive integer, not 0
 */
export function positiveInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer, not ${value}`);
  }
  return value;
}

/**
 * `value` when it is a safe integer ≥ 0; otherwise a RangeError naming the option.
 *
 * @example
 * nonNegativeInteger('busyTimeoutMs', 0); // 0
 */
export function nonNegativeInteger(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`${name} must be a non-negative integer, not ${value}`);
  }
  return value;
}
