import { isInteger, LosslessNumber, parse, stringify } from 'lossless-json';

/** Thrown by {@link parseJson} for text that is not well-formed JSON. */
export class MalformedJsonError extends Error {
  override readonly name = 'MalformedJsonError';
}

/**
 * Most arrays and objects {@link parseJson} accepts nested in one another. A NewPlant needs 1;
 * the parser recurses once per level, so text nested deeper is refused before parsing.
 */
export const MAX_JSON_DEPTH = 64;

/** Thrown by {@link parseJson} for JSON nested deeper than {@link MAX_JSON_DEPTH}. */
export class JsonTooDeepError extends Error {
  override readonly name = 'JsonTooDeepError';
}

// An integral number written with a fraction or exponent (`1.0`, `1e3`) is turned into a
// bigint only while it needs at most this many zeros appended; anything larger is out of int64
// range anyway, and a bound keeps `1e999999999` from building a huge bigint.
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
    if (scale >= 0) {
      if (scale <= MAX_EXPONENT) return BigInt(`${sign}${digits}${'0'.repeat(scale)}`);
    } else if (-scale < digits.length && /^0+$/.test(digits.slice(scale))) {
      // Integral however far the point moves left (`1000e-3`, `1${'0'.repeat(40)}e-40`).
      return BigInt(`${sign}${digits.slice(0, scale)}`);
    }
  }
  return Number(text);
}

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
function toSchemaNumber(text: string): bigint | number | LosslessNumber {
  const value = parseJsonNumber(text);
  if (typeof value === 'bigint') {
    return value >= MIN_SAFE && value <= MAX_SAFE ? Number(value) : value;
  }
  return Number.isInteger(value) && Math.abs(value) < HUGE ? new LosslessNumber(text) : value;
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
  const tooDeepAt = depthExceededAt(text, MAX_JSON_DEPTH);
  if (tooDeepAt !== -1) {
    throw new JsonTooDeepError(
      `nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels (at character ${tooDeepAt})`,
    );
  }
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

const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The position of the first `[` or `{` (outside strings) that opens level `maxDepth + 1`, or
 * -1 when the text never nests that deep. One pass without recursion, so it costs the same
 * for 100 000 `[` as for any text of that length; malformed text is left to the parser.
 */
function depthExceededAt(text: string, maxDepth: number): number {
  // Fewer characters than levels cannot nest too deep: most bodies skip the scan.
  if (text.length <= maxDepth) return -1;
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === BACKSLASH) index += 1;
      else if (char === QUOTE) inString = false;
    } else if (char === QUOTE) {
      inString = true;
    } else if (char === OPEN_BRACKET || char === OPEN_BRACE) {
      depth += 1;
      if (depth > maxDepth) return index;
    } else if (char === CLOSE_BRACKET || char === CLOSE_BRACE) {
      depth -= 1;
    }
  }
  return -1;
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
