import { isInteger, parse, stringify } from 'lossless-json';

/** Thrown by {@link parseJson} for text that is not well-formed JSON. */
export class MalformedJsonError extends Error {
  override readonly name = 'MalformedJsonError';
}

// An integral number written with a fraction or exponent (`1.0`, `1e3`) is turned into a
// bigint only while its exponent is this small; anything larger is out of int64 range anyway,
// and a bound keeps `1e999999999` from building a huge bigint.
const MAX_EXPONENT = 30;
const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * Turns a JSON number's text into an exact value: an integral value becomes a `bigint`
 * (so 9007199254740993 is not rounded), anything else a `number`.
 */
export function parseJsonNumber(text: string): bigint | number {
  if (isInteger(text)) return BigInt(text);
  const match = DECIMAL.exec(text);
  if (match) {
    const [, sign = '', whole = '', fraction = '', exponentText = '0'] = match;
    const exponent = Number(exponentText);
    const digits = (whole + fraction).replace(/^0+(?=\d)/, '');
    const scale = exponent - fraction.length;
    if (/^0+$/.test(digits)) return 0n;
    if (Math.abs(scale) <= MAX_EXPONENT + fraction.length) {
      if (scale >= 0 && scale <= MAX_EXPONENT)
        return BigInt(`${sign}${digits}${'0'.repeat(scale)}`);
      if (scale < 0 && /^0+$/.test(digits.slice(scale))) {
        return BigInt(`${sign}${digits.slice(0, scale) || '0'}`);
      }
    }
  }
  return Number(text);
}

/**
 * Parses JSON text without losing integer precision: integers become `bigint`.
 * Throws {@link MalformedJsonError} with a short, position-only message on bad input.
 *
 * @example
 * parseJson('{"id": 9223372036854775807}'); // { id: 9223372036854775807n }
 */
export function parseJson(text: string): unknown {
  try {
    return parse(text, null, parseJsonNumber);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const duplicate = /^Duplicate key '(.*)' encountered/.exec(reason);
    if (duplicate) throw new MalformedJsonError(`repeats the key "${duplicate[1]}"`);
    const position = /at position (\d+)/.exec(reason);
    throw new MalformedJsonError(
      position ? `is not valid JSON (at character ${position[1]})` : 'is not valid JSON',
    );
  }
}

/**
 * Serializes a value to JSON, writing `bigint` values as exact JSON integers.
 *
 * @example
 * stringifyJson({ id: 2n ** 63n - 1n }); // '{"id":9223372036854775807}'
 */
export function stringifyJson(value: unknown): string {
  const text = stringify(value);
  if (text === undefined) throw new TypeError('value cannot be serialized as JSON');
  return text;
}
