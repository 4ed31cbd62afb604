import { isLosslessNumber } from './lossless-number.ts';

/**
 * How an error message names the kind of a value that has the wrong type: `nothing` for a
 * missing one, `null`, or the kind with its article (`a string`, `an array`, …). A JSON
 * integer too large for a `number` arrives as a `bigint` and a non-integer that a double would
 * round to an integer as a `LosslessNumber` (see `parseJson`): both are numbers to the sender.
 *
 * @example
 * describeValue([1]); // 'an array'
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  // A bigint and a LosslessNumber are numbers to the sender; every other kind is its `typeof`.
  const type = typeof value === 'bigint' || isLosslessNumber(value) ? 'number' : typeof value;
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}
