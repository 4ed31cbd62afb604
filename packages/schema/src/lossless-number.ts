/**
 * A JSON number kept as its text: what `parseJson` reads a non-integer as when a double would
 * round it to an integer (`1e-400`, `4503599627370496.5`), so no integer schema takes it for one.
 * `stringifyJson` writes it back as that text.
 */
export class LosslessNumber {
  constructor(readonly value: string) {}

  toString(): string {
    return this.value;
  }
}

/** True for a {@link LosslessNumber}. */
export function isLosslessNumber(value: unknown): value is LosslessNumber {
  return value instanceof LosslessNumber;
}
