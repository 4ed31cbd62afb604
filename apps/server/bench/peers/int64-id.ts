const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const INTEGER_LITERAL = /^-?(?:0|[1-9][0-9]*)$/;

/**
 * The exact signed 64-bit value of a NewPlant's `id`, or `undefined` when it is not one.
 * `parsedId` is what `JSON.parse` (no reviver) made of it: a safe integer is taken as it is;
 * any other number may have been rounded, so the id's own text in `json` decides: an integer
 * literal within int64 range becomes a `bigint`, anything else (a fraction, an exponent, out of
 * range) is refused. Integral values written with a fraction or an exponent that JSON.parse
 * turns into a safe integer (`1.0`) are accepted as that integer.
 *
 * @example
 * exactInt64(JSON.parse(text).id, text); // 9007199254740993n for {"id": 9007199254740993}
 */
export function exactInt64(parsedId: unknown, json: string): number | bigint | undefined {
  if (typeof parsedId !== 'number') return undefined;
  if (Number.isSafeInteger(parsedId)) return parsedId;
  const literal = topLevelMember(json, 'id');
  if (literal === undefined || !INTEGER_LITERAL.test(literal)) return undefined;
  const value = BigInt(literal);
  return value >= INT64_MIN && value <= INT64_MAX ? value : undefined;
}

/**
 * The text of the last member named `key` of the top-level object of `json`, which must be
 * well-formed JSON (JSON.parse accepted it; it keeps the last of repeated keys too).
 *
 * @example
 * topLevelMember('{"a": {"id": 1}, "id": 2}', 'id'); // '2'
 */
export function topLevelMember(json: string, key: string): string | undefined {
  let at = skipSpace(json, 0);
  if (json[at] !== '{') return undefined;
  let found: string | undefined;
  at = skipSpace(json, at + 1);
  while (at < json.length && json[at] === '"') {
    const keyEnd = valueEnd(json, at);
    const raw = json.slice(at, keyEnd);
    const name = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
    at = skipSpace(json, skipSpace(json, keyEnd) + 1); // past the colon
    const end = valueEnd(json, at);
    if (name === key) found = json.slice(at, end);
    at = skipSpace(json, end);
    if (json[at] !== ',') break;
    at = skipSpace(json, at + 1);
  }
  return found;
}

function skipSpace(json: string, at: number): number {
  let i = at;
  while (i < json.length) {
    const c = json.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

/** Where the JSON value starting at `at` ends (exclusive). */
function valueEnd(json: string, at: number): number {
  const first = json[at];
  if (first === '"') {
    let i = at + 1;
    while (i < json.length && json[i] !== '"') i += json[i] === '\\' ? 2 : 1;
    return i + 1;
  }
  if (first === '{' || first === '[') {
    let depth = 0;
    let i = at;
    while (i < json.length) {
      const c = json[i];
      if (c === '"') {
        i = valueEnd(json, i);
        continue;
      }
      if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
    return i;
  }
  let i = at;
  while (i < json.length && !',}] \n\r\t'.includes(json[i] as string)) i++;
  return i;
}
