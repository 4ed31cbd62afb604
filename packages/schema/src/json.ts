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
/** A string up to its closing quote: no raw control character, only JSON's escapes (unrolled). */
const CHARS = '[^"\\\\\\u0000-\\u001f]*';
const OPEN_STRING = new RegExp(`"${CHARS}(?:\\\\(?:["\\\\/bfnrt]|u[0-9a-fA-F]{4})${CHARS})*`, 'y');
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERAL = /true|false|null/y;
/** What a container that is not kept holds between its strings and brackets, skipped at once. */
const SCALARS = /[^"[\]{}]*/y;
/** A run of one bracket: `[[[`, `}}`. */
const BRACKET_RUN = /\[+|\]+|\{+|\}+/y;
const [QUOTE, COMMA, COLON] = [0x22, 0x2c, 0x3a];
const [OPEN_ARRAY, CLOSE_ARRAY, OPEN_OBJECT, CLOSE_OBJECT] = [0x5b, 0x5d, 0x7b, 0x7d];

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
  /** Skips spaces; the next character's code (NaN at the end). */
  const peek = (): number => {
    let code = text.charCodeAt(at);
    while (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09) {
      code = text.charCodeAt(++at);
    }
    return code;
  };
  /** Takes the next character if it is `code`. */
  const take = (code: number): boolean => {
    if (peek() !== code) return false;
    at += 1;
    return true;
  };
  /** Takes the token `pattern` matches here; MalformedJsonError if none. */
  const match = (pattern: RegExp): string => {
    pattern.lastIndex = at;
    if (!pattern.test(text)) fail();
    const token = text.slice(at, pattern.lastIndex);
    at = pattern.lastIndex;
    return token;
  };
  /** The string here, decoded when kept (cut past `flat.maxStringLength`). */
  const string = (keep: boolean): string => {
    const start = at;
    match(OPEN_STRING);
    if (text.charCodeAt(at) !== QUOTE) fail();
    at += 1;
    if (!keep) return '';
    const raw = text.slice(start + 1, at - 1);
    const value = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
    const max = flat?.maxStringLength ?? value.length;
    if (value.length <= max) return value;
    const high = value.charCodeAt(max - 1);
    return value.slice(0, high >= 0xd800 && high <= 0xdbff ? max - 1 : max);
  };
  /** A container opens here, {@link MAX_JSON_DEPTH} containers in. */
  const tooDeep = (): never => {
    const where = `(at character ${at})`;
    throw new JsonTooDeepError(
      `nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels ${where}`,
    );
  };
  /** The value here, `depth` containers in (one a flat record cannot hold: checked, not kept). */
  const value = (depth: number): unknown => {
    const code = peek();
    if (code === QUOTE) return string(true);
    if (code !== OPEN_ARRAY && code !== OPEN_OBJECT) {
      if (code === 0x2d || (code >= 0x30 && code <= 0x39)) return toSchemaNumber(match(NUMBER));
      return { true: true, false: false, null: null }[match(LITERAL)];
    }
    if (depth === MAX_JSON_DEPTH) tooDeep();
    at += 1;
    if (flat === undefined || (code === OPEN_OBJECT && depth === 0)) {
      return code === OPEN_ARRAY ? array(depth + 1) : object(depth + 1);
    }
    skip(depth + 1, code + 2); // `[` + 2 is `]`, `{` + 2 is `}`
    return code === OPEN_ARRAY ? [] : {};
  };
  /** Takes the run of the bracket `code` here (one search, unless it is one bracket); its length. */
  const bracketRun = (code: number): number => {
    if (text.charCodeAt(at + 1) === code) return match(BRACKET_RUN).length;
    at += 1;
    return 1;
  };
  /**
   * A container not kept, through its `close`: only its strings and brackets checked. The
   * closing brackets still expected are kept as runs (`]` 60 times is one), and each run of one
   * bracket, or of scalars, is taken in one search: a body of deep groups costs a step per run,
   * not per bracket. These lines and the character dispatch above are what a hostile body's
   * cost needs (json.ts past 120 code lines): bench/results/json-parse.md.
   */
  const skip = (depth: number, close: number): void => {
    let open = 1; // containers open, this one included
    let kind = close; // the innermost run expected: `kind`, `count` times
    let count = 1;
    const outer: number[] = []; // the runs around it: kind, count, kind, count, …
    while (open > 0) {
      const code = text.charCodeAt(at);
      if (code === QUOTE) string(false);
      else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
        const from = at;
        const run = bracketRun(code);
        if (depth + open + run - 1 > MAX_JSON_DEPTH) {
          at = from + MAX_JSON_DEPTH - depth - open + 1; // the bracket one level too deep
          tooDeep();
        }
        if (code + 2 === kind) {
          count += run; // `[` + 2 is `]`, `{` + 2 is `}`
        } else {
          outer.push(kind, count);
          kind = code + 2;
          count = run;
        }
        open += run;
      } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
        let run = bracketRun(code);
        at -= run; // taken below one expected run at a time: a wrong kind fails at its bracket
        while (run > 0 && open > 0) {
          if (code !== kind) fail();
          const taken = Math.min(run, count);
          at += taken;
          run -= taken;
          open -= taken;
          count -= taken;
          if (count === 0 && open > 0) {
            count = outer.pop() ?? 0;
            kind = outer.pop() ?? 0;
          }
        }
      } else if (Number.isNaN(code)) fail();
      else match(SCALARS);
    }
  };
  const array = (depth: number): unknown[] => {
    const items: unknown[] = [];
    if (take(CLOSE_ARRAY)) return items;
    do items.push(value(depth));
    while (take(COMMA));
    return take(CLOSE_ARRAY) ? items : fail();
  };
  const object = (depth: number): object => {
    const members = new Map<string, unknown>();
    const sources = new Map<string, string>();
    const keys: string[] = [];
    if (take(CLOSE_OBJECT)) return {};
    do {
      if (peek() !== QUOTE) fail();
      const key = string(true);
      if (flat && keys.length === flat.maxMembers) throw new JsonTooWideError(keys.slice(0, 3));
      keys.push(key);
      if (!take(COLON)) fail();
      const from = at;
      const member = value(depth);
      // The same value again (`1` and `1.0`, `"c"` and `"\u0063"`, or the same text) is harmless.
      const source = text.slice(from, at).trim();
      if (members.has(key) && members.get(key) !== member && sources.get(key) !== source) {
        throw new MalformedJsonError(`repeats the key "${shortened(key)}"`);
      }
      sources.set(key, source);
      members.set(key, member);
    } while (take(COMMA));
    return take(CLOSE_OBJECT) ? Object.fromEntries(members) : fail(); // own keys, `__proto__` too
  };
  const result = value(0);
  return Number.isNaN(peek()) ? result : fail();
}
