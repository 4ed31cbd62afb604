/** The global symbol a lossless-json `LosslessNumber` answers `true` to (lossless-json 4). */
const LOSSLESS_NUMBER = Symbol.for('lossless-json.LosslessNumber');

/**
 * True for a `LosslessNumber` (what `parseJson` keeps a non-integer as when a double would make
 * it an integer): the test lossless-json's `isLosslessNumber` makes, written here so the
 * browser's entry (`shapes`) holds no part of lossless-json. `lossless-number.test.ts` checks
 * it against lossless-json's own.
 */
export function isLosslessNumber(value: unknown): value is { readonly value: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[LOSSLESS_NUMBER] === true
  );
}
