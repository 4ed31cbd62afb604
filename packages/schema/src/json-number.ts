import { LosslessNumber } from './lossless-number.ts';

// An integral number written with a fraction or exponent (`1.0`, `1e3`) is turned into a
// bigint only while it needs at most this many zeros appended; anything larger is out of int64
// range anyway, and a bound keeps `1e999999999` from building a huge bigint.
const MAX_EXPONENT = 30;
// An integer of more digits is read as a `number` (it is far out of int64 range): parsing a
// bigint takes time that grows with the square of its digits.
const MAX_INTEGER_DIGITS = 400;
const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * Turns a JSON number's text into an exact value: an integral value becomes a `bigint`
 * (so 9007199254740993 is not rounded), anything else a `number`.
 */
export function parseJsonNumber(text: string): bigint | number {
  if (/^-?\d+$/.test(text)) return text.length > MAX_INTEGER_DIGITS ? Number(text) : BigInt(text);
  const match = DECIMAL.exec(text);
  if (match) {
    const [, sign = '', whole = '', fraction = '', exponentText = '0'] = match;
    const exponent = Number(exponentText);
    const digits = (whole + fraction).replace(/^0+(?=\d)/, '');
    const scale = exponent - fraction.length;
    if (/^0+$/.test(digits)) return 0n;
    if (digits.length + scale > MAX_INTEGER_DIGITS) return Number(text);
    if (scale >= 0) {
      if (scale <= MAX_EXPONENT) return BigInt(`${sign}${digits}${'0'.repeat(scale)}`);
    } else if (-scale < digits.length && /^0+$/.test(digits.slice(scale))) {
      // Integral however far the point moves left (`1000e-3`, `1${'0'.repeat(40)}e-40`).
      return BigInt(`${sign}${digits.slice(0, scale)}`);
    }
  }
  return Number(text);
}

/** An integer of at most 15 digits: a safe integer, exact as a double. */
const SAFE_INTEGER = /^(?:0|-?[1-9]\d{0,14})$/;
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

// parseJsonNumber returns an integral value as a `number` only from this size up.
const HUGE = 10 ** (MAX_EXPONENT + 1);

/**
 * A JSON number as the schemas expect it: safe integers as `number`, larger ones as `bigint`,
 * other numbers as `number` — except a non-integer whose nearest double is an integer
 * (`1.0000000000000000001`, `1e-400`, `4503599627370496.5`): that one stays a
 * `LosslessNumber` (its text), so no integer schema mistakes it for an integer.
 */
export function toSchemaNumber(text: string): bigint | number | LosslessNumber {
  if (SAFE_INTEGER.test(text)) return Number(text);
  const value = parseJsonNumber(text);
  if (typeof value === 'bigint') {
    return value >= MIN_SAFE && value <= MAX_SAFE ? Number(value) : value;
  }
  return Number.isInteger(value) && Math.abs(value) < HUGE ? new LosslessNumber(text) : value;
}
