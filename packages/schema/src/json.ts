import { isInteger, LosslessNumber, parse } from 'lossless-json';
import { shortened } from './shortened.ts';

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
// An integer of more digits is read as a `number` (it is far out of int64 range): parsing a
// bigint takes time that grows with the square of its digits (65,000 digits cost 3 ms).
const MAX_INTEGER_DIGITS = 400;
const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * Turns a JSON number's text into an exact value: an integral value becomes a `bigint`
 * (so 9007199254740993 is not rounded), anything else a `number`.
 */
export function parseJsonNumber(text: string): bigint | number {
  if (isInteger(text)) return text.length > MAX_INTEGER_DIGITS ? Number(text) : BigInt(text);
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
 * How far {@link parseJson} reads a document meant to be a flat record: one object whose values
 * are numbers, strings, booleans or null (a NewPlant). What such a record cannot hold is not
 * parsed, so a body that cannot be one costs a single pass over its text, whatever its shape.
 */
export interface FlatRecordLimits {
  /** Most members the object may have, a key repeated with the same value counted each time. */
  readonly maxMembers: number;
  /**
   * A string longer than this many characters of JSON text (a key, a value, or the whole
   * document) is read only that far, cut where a character ends: set it above the JSON text of
   * the longest string the record accepts (12 characters per code point, `\uD83C\uDF3F`).
   */
  readonly maxStringLength: number;
}

export interface ParseJsonOptions {
  /**
   * Read the text as a flat record: an array, or an object within the top-level object, is read
   * as an empty one (only its nesting and brackets are checked, not its content); a string
   * longer than `maxStringLength` is cut; an object with more than `maxMembers` members throws
   * {@link JsonTooWideError} at its member `maxMembers + 1`. A flat record's own members are read exactly as without it.
   */
  readonly flatRecord?: FlatRecordLimits;
}

/**
 * Thrown by {@link parseJson} with `flatRecord` for an object with more members than allowed,
 * as soon as it has one too many (the rest of the text is not read).
 */
export class JsonTooWideError extends Error {
  override readonly name = 'JsonTooWideError';
  constructor(
    /** Its first keys, decoded (each may be long: quote them shortened). */
    readonly firstKeys: readonly string[],
  ) {
    super('has an object with too many members');
  }
}

/**
 * Parses JSON text without losing integer precision: an integer beyond ±(2^53 − 1) becomes
 * an exact `bigint`, a safe one stays a `number` (so `Int64` and `z.int32()` fields both
 * validate). Used by the server for request bodies and by the client for responses.
 * Throws {@link MalformedJsonError} with a short, position-only message on bad input,
 * {@link JsonTooDeepError} for text nested deeper than {@link MAX_JSON_DEPTH}, and (with
 * `flatRecord`) {@link JsonTooWideError}.
 *
 * @example
 * parseJson('{"id": 9223372036854775807, "n": 7}'); // { id: 9223372036854775807n, n: 7 }
 * parseJson('{"id": 1, "a": [1, [2]]}', { flatRecord: { maxMembers: 16, maxStringLength: 4096 } });
 * // { id: 1, a: [] }
 */
export function parseJson(text: string, options: ParseJsonOptions = {}): unknown {
  const plain = options.flatRecord && plainFlatRecord(text, options.flatRecord);
  if (plain) return plain;
  let source = text;
  let originalAt = (position: number) => position;
  if (options.flatRecord) {
    ({ text: source, originalAt } = flatRecordText(text, options.flatRecord));
  } else {
    const tooDeepAt = depthExceededAt(text, MAX_JSON_DEPTH);
    if (tooDeepAt !== -1) throw tooDeep(tooDeepAt);
  }
  try {
    return parse(source, null, toSchemaNumber);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const duplicate = /^Duplicate key '(.*)' encountered/s.exec(reason);
    if (duplicate)
      throw new MalformedJsonError(`repeats the key "${shortened(duplicate[1] ?? '')}"`);
    const position = /at position (\d+)/.exec(reason);
    throw new MalformedJsonError(
      position
        ? `is not valid JSON (at character ${originalAt(Number(position[1]))})`
        : 'is not valid JSON',
    );
  }
}

const WHITESPACE = '[ \\t\\n\\r]*';
/** A string with no escape and no raw control character (not JSON: the full path says where). */
const PLAIN_STRING = '"[^"\\\\\\u0000-\\u001f]*"';
/** JSON whitespace, a key, its value: a string, `0`, an integer of at most 16 digits, a literal. */
const PLAIN_MEMBER = `${WHITESPACE}${PLAIN_STRING}${WHITESPACE}:${WHITESPACE}(?:${PLAIN_STRING}|0|-?[1-9][0-9]{0,15}|true|false|null)${WHITESPACE}`;
/** One object of such members: a flat record with no escape in it. */
const PLAIN_RECORD = new RegExp(
  `^${WHITESPACE}\\{(?:${PLAIN_MEMBER}(?:,${PLAIN_MEMBER})*|${WHITESPACE})\\}${WHITESPACE}$`,
);

/**
 * The usual body read at the speed of `JSON.parse`: a text with no escape, no string longer than
 * the limit, one object of strings, safe integers (exact as doubles, as the full path keeps
 * them), booleans and null, no key repeated. Anything else (`undefined`) takes the full path,
 * which reads such a text to the same value.
 */
function plainFlatRecord(text: string, limits: FlatRecordLimits): object | undefined {
  if (text.length > limits.maxStringLength || !PLAIN_RECORD.test(text)) return undefined;
  // A colon follows each key; one inside a string counts too, and then the counts below differ
  // (the full path reads it): a repeated key never passes.
  let members = 0;
  for (let at = text.indexOf(':'); at !== -1; at = text.indexOf(':', at + 1)) members += 1;
  if (members > limits.maxMembers) return undefined;
  const record = JSON.parse(text) as object;
  const values = Object.values(record);
  if (values.length !== members) return undefined;
  // 16 digits may pass 2^53 − 1, where a double is no longer exact: the full path reads those.
  return values.every((value) => typeof value !== 'number' || Number.isSafeInteger(value))
    ? record
    : undefined;
}

function tooDeep(at: number): JsonTooDeepError {
  return new JsonTooDeepError(
    `nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels (at character ${at})`,
  );
}

const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const LETTER_U = 0x75;
/** Space, tab, line feed and carriage return. */
const JSON_WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
/** How many keys a {@link JsonTooWideError} names. */
const NAMED_KEYS = 3;

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
 * `text` without what a flat record cannot hold, in one pass: the content of every array, and
 * of every object but the top-level one, is left out (so `[1, [2]]` reads as `[]`), and a string
 * longer than `maxStringLength` is closed where a character ends, the rest of it left out; with
 * `originalAt`, which turns a position in the shorter text into the caller's. Throws
 * {@link JsonTooDeepError} for nesting deeper than {@link MAX_JSON_DEPTH},
 * {@link MalformedJsonError} for a bracket closed by the other kind, and
 * {@link JsonTooWideError} for a top-level object of more than `maxMembers` members.
 */
function flatRecordText(
  text: string,
  limits: FlatRecordLimits,
): { text: string; originalAt: (position: number) => number } {
  const parts: string[] = [];
  let copied = 0;
  let length = 0;
  /** Where the shorter text skips ahead: from this position on, add this many characters. */
  const skips: { readonly from: number; readonly add: number }[] = [];
  /** `text[from, to)` replaced by `replacement`. */
  const replace = (from: number, to: number, replacement = '') => {
    parts.push(text.slice(copied, from), replacement);
    length += from - copied + replacement.length;
    skips.push({ from: length, add: (skips.at(-1)?.add ?? 0) + (to - from - replacement.length) });
    copied = to;
  };
  let inObject = false;
  let members = 0;
  let lastString = -1;
  const keys: number[] = [];
  let valueStart = 0;
  while (JSON_WHITESPACE.has(text.charCodeAt(valueStart))) valueStart += 1;
  let index = 0;
  while (index < text.length) {
    const char = text.charCodeAt(index);
    if (char === QUOTE) {
      const end = stringEnd(text, index);
      if (end === text.length)
        throw new MalformedJsonError(`is not valid JSON (at character ${end})`);
      if (end - index - 1 > limits.maxStringLength) {
        const cut = cutPoint(text, index + 1, index + 1 + limits.maxStringLength);
        replace(cut, end + 1, '"');
      }
      lastString = index;
      index = end + 1;
    } else if (char === OPEN_BRACE && index === valueStart) {
      inObject = true;
      index += 1;
    } else if (char === OPEN_BRACKET || char === OPEN_BRACE) {
      const close = containerEnd(text, index, inObject ? 1 : 0);
      replace(index + 1, close);
      index = close + 1;
    } else {
      if (char === COLON && inObject) {
        members += 1;
        if (keys.length < NAMED_KEYS && lastString !== -1) keys.push(lastString);
        // The answer is known: read no further.
        if (members > limits.maxMembers) throw tooWide(text, keys);
      }
      index += 1;
    }
  }
  if (skips.length === 0) return { text, originalAt: (position) => position };
  parts.push(text.slice(copied));
  const originalAt = (position: number) =>
    position + (skips.findLast((skip) => skip.from <= position)?.add ?? 0);
  return { text: parts.join(''), originalAt };
}

/** The index of the quote that closes the string opened at `start`, or the text's length. */
function stringEnd(text: string, start: number): number {
  let index = start;
  for (;;) {
    index = text.indexOf('"', index + 1);
    if (index === -1) return text.length;
    // Escaped when an odd number of backslashes precede it.
    let before = index - 1;
    while (text.charCodeAt(before) === BACKSLASH) before -= 1;
    if ((index - 1 - before) % 2 === 0) return index;
  }
}

/**
 * The last index at most `limit` where a character of the string starting at `from` starts:
 * never inside an escape (`\u00e9`), nor between the two halves of a surrogate pair, written
 * raw or as two escapes.
 */
function cutPoint(text: string, from: number, limit: number): number {
  let index = from;
  for (;;) {
    let width = 1;
    const char = text.charCodeAt(index);
    if (char === BACKSLASH) {
      width = text.charCodeAt(index + 1) === LETTER_U ? 6 : 2;
      const unit = Number.parseInt(text.slice(index + 2, index + 6), 16);
      if (width === 6 && unit >= 0xd800 && unit <= 0xdbff) {
        if (text.charCodeAt(index + 6) === BACKSLASH) width = 12;
      }
    } else if (char >= 0xd800 && char <= 0xdbff) {
      width = 2;
    }
    if (index + width > limit) return index;
    index += width;
  }
}

const STRUCTURAL = /["[\]{}]/g;
/** 1 at the code of `"`, `[`, `]`, `{` and `}`. */
const STRUCTURAL_CODES = new Uint8Array(128);
for (const code of [QUOTE, OPEN_BRACKET, CLOSE_BRACKET, OPEN_BRACE, CLOSE_BRACE]) {
  STRUCTURAL_CODES[code] = 1;
}

/**
 * The index of the bracket that closes the array or object opened at `start`, at `depth`
 * levels (or the text's length when it is never closed).
 */
function containerEnd(text: string, start: number, depth: number): number {
  // The closing bracket each open level expects, innermost last.
  const closing = new Uint8Array(MAX_JSON_DEPTH + 1);
  const deepest = MAX_JSON_DEPTH - depth;
  let open = 0;
  for (let index = start; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (char === OPEN_BRACKET || char === OPEN_BRACE) {
      if (open === deepest) throw tooDeep(index);
      closing[open] = char + 2; // `[` + 2 is `]`, `{` + 2 is `}`
      open += 1;
    } else if (char === CLOSE_BRACKET || char === CLOSE_BRACE) {
      open -= 1;
      if (open < 0 || closing[open] !== char) {
        throw new MalformedJsonError(`is not valid JSON (at character ${index})`);
      }
      if (open === 0) return index;
    } else if (char === QUOTE) {
      index = stringEnd(text, index);
    } else if (STRUCTURAL_CODES[text.charCodeAt(index + 1)] !== 1) {
      // A run of numbers, literals, commas and spaces is skipped in one native search.
      STRUCTURAL.lastIndex = index;
      index = (STRUCTURAL.exec(text)?.index ?? text.length) - 1;
    }
  }
  return text.length;
}

function tooWide(text: string, keys: readonly number[]): JsonTooWideError {
  return new JsonTooWideError(keys.map((start) => keyAt(text, start)));
}

/** The key whose string starts at `start`, decoded (as written, when it does not decode). */
function keyAt(text: string, start: number): string {
  const raw = text.slice(start, stringEnd(text, start) + 1);
  try {
    return String(JSON.parse(raw));
  } catch {
    return raw;
  }
}
