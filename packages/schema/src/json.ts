import { toSchemaNumber } from './json-number.ts';
import { shortened } from './shortened.ts';

export { parseJsonNumber } from './json-number.ts';

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

/**
 * How far {@link parseJson} reads a document meant to be a flat record: one object whose values
 * are numbers, strings, booleans or null (a NewPlant). What such a record cannot hold is checked
 * but not kept, so a hostile body costs one pass over its text and allocates little.
 */
export interface FlatRecordLimits {
  /** Most members the object may have, a key repeated with the same value counted each time. */
  readonly maxMembers: number;
  /** A string longer than this many UTF-16 units is cut there (never inside a surrogate pair). */
  readonly maxStringLength: number;
}

export interface ParseJsonOptions {
  /**
   * Read the text as a flat record: an array, or an object within the top-level object, is read
   * as an empty one (its content checked, not kept); a string longer than `maxStringLength` is
   * cut; the top-level object throws {@link JsonTooWideError} at its member `maxMembers + 1`.
   */
  readonly flatRecord?: FlatRecordLimits;
}

/** Thrown by {@link parseJson} with `flatRecord` at the member one too many (read no further). */
export class JsonTooWideError extends Error {
  override readonly name = 'JsonTooWideError';
  constructor(
    /** Its first keys, decoded (each may be long: quote them shortened). */
    readonly firstKeys: readonly string[],
  ) {
    super('has an object with too many members');
  }
}

// Each token is matched where the reader stands (sticky).
const SPACE = /[ \t\n\r]*/y;
/** A string: no raw control character, only JSON's escapes (unrolled: no backtracking per character). */
const CHARS = '[^"\\\\\\u0000-\\u001f]*';
const OPEN_STRING = new RegExp(`"${CHARS}(?:\\\\(?:["\\\\/bfnrt]|u[0-9a-fA-F]{4})${CHARS})*`, 'y');
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERAL = /true|false|null/y;
const OPEN = /[[{]/y;
const [COLON, END_ARRAY, END_OBJECT, END] = [/:/y, /]/y, /}/y, /$/y];
const [ARRAY_NEXT, OBJECT_NEXT] = [/[,\]]/y, /[,}]/y];

/**
 * Parses JSON text without losing integer precision: an integer beyond ±(2^53 − 1) becomes
 * an exact `bigint`, a safe one stays a `number` (so `Int64` and `z.int32()` fields both
 * validate); a key repeated with another value is refused. One recursive pass. Throws
 * {@link MalformedJsonError} with a short, position-only message on bad input,
 * {@link JsonTooDeepError} for text nested deeper than {@link MAX_JSON_DEPTH}, and (with
 * `flatRecord`) {@link JsonTooWideError}.
 *
 * @example
 * parseJson('{"id": 9223372036854775807, "n": 7}'); // { id: 9223372036854775807n, n: 7 }
 * parseJson('{"id": 1, "a": [1, [2]]}', { flatRecord: { maxMembers: 16, maxStringLength: 4096 } });
 * // { id: 1, a: [] }
 */
export function parseJson(text: string, options: ParseJsonOptions = {}): unknown {
  const flat = options.flatRecord;
  let at = 0;
  const fail = (): never => {
    throw new MalformedJsonError(`is not valid JSON (at character ${at})`);
  };
  /** After any spaces, the token `pattern` matches (taken), or undefined. */
  const token = (pattern: RegExp): string | undefined => {
    SPACE.lastIndex = at;
    SPACE.exec(text);
    at = pattern.lastIndex = SPACE.lastIndex;
    const found = pattern.exec(text)?.[0];
    if (found !== undefined) at = pattern.lastIndex;
    return found;
  };
  /** A string's JSON text; where it breaks, MalformedJsonError there. */
  const string = (): string | undefined => {
    const opened = token(OPEN_STRING);
    if (opened === undefined) return undefined;
    if (text.charAt(at) !== '"') fail();
    at += 1;
    return `${opened}"`;
  };
  /** A string or a literal, a string longer than `flat.maxStringLength` cut. */
  const decoded = (raw: string): unknown => {
    const value: unknown = JSON.parse(raw);
    const max = flat?.maxStringLength ?? Number.POSITIVE_INFINITY;
    if (typeof value !== 'string' || value.length <= max) return value;
    const high = value.charCodeAt(max - 1);
    return value.slice(0, high >= 0xd800 && high <= 0xdbff ? max - 1 : max);
  };
  /** The value at `at`, `depth` containers in; `keep`: built, else only checked. */
  const value = (depth: number, keep: boolean): unknown => {
    const open = token(OPEN);
    if (open === undefined) {
      const number = token(NUMBER);
      if (number !== undefined) return keep ? toSchemaNumber(number) : undefined;
      const raw = string() ?? token(LITERAL) ?? fail();
      return keep ? decoded(raw) : undefined;
    }
    if (depth === MAX_JSON_DEPTH) {
      const where = `(at character ${at - 1})`;
      throw new JsonTooDeepError(
        `nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels ${where}`,
      );
    }
    const inside = keep && (flat === undefined || (open === '{' && depth === 0));
    const members = open === '[' ? array(depth + 1, inside) : object(depth + 1, inside);
    return keep ? members : undefined;
  };
  const array = (depth: number, keep: boolean): unknown[] => {
    const items: unknown[] = [];
    if (token(END_ARRAY)) return items;
    do {
      const item = value(depth, keep);
      if (keep) items.push(item);
    } while ((token(ARRAY_NEXT) ?? fail()) === ',');
    return items;
  };
  const object = (depth: number, keep: boolean): object => {
    const members = new Map<string, unknown>();
    const sources = new Map<string, string>();
    const keys: string[] = [];
    if (token(END_OBJECT)) return {};
    do {
      const key = String(keep ? decoded(string() ?? fail()) : (string() ?? fail()));
      if (keep && flat && keys.length === flat.maxMembers)
        throw new JsonTooWideError(keys.slice(0, 3));
      keys.push(key);
      if (!token(COLON)) fail();
      const from = at;
      const member = value(depth, keep);
      if (!keep) continue;
      // The same value again (`1` and `1.0`, `"c"` and `"\u0063"`, or the same text) is harmless.
      const source = text.slice(from, at).trim();
      if (members.has(key) && members.get(key) !== member && sources.get(key) !== source) {
        throw new MalformedJsonError(`repeats the key "${shortened(key)}"`);
      }
      sources.set(key, source);
      members.set(key, member);
    } while ((token(OBJECT_NEXT) ?? fail()) === ',');
    return Object.fromEntries(members); // own keys, `__proto__` included
  };
  const result = value(0, true);
  if (token(END) === undefined) fail();
  return result;
}
