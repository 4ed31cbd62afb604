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

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** A JSON number as the schemas expect it: safe integers as `number`, larger ones as `bigint`. */
function toSchemaNumber(text: string): bigint | number {
  const value = parseJsonNumber(text);
  return typeof value === 'bigint' && value >= MIN_SAFE && value <= MAX_SAFE
    ? Number(value)
    : value;
}

/**
 * Parses JSON text without losing integer precision: an integer beyond ±(2^53 − 1) becomes
 * an exact `bigint`, a safe one stays a `number` (so `Int64` and `z.int32()` fields both
 * validate). Used by the server for request bodies and by the client for responses.
 * Throws {@link MalformedJsonError} with a short, position-only message on bad input.
 *
 * @example
 * parseJson('{"id": 9223372036854775807, "n": 7}'); // { id: 9223372036854775807n, n: 7 }
 */
export function parseJson(text: string): unknown {
  try {
    return parse(text, null, toSchemaNumber);
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
