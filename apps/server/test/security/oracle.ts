import type { JsonPiece, Members } from './arbitraries.ts';

// What the README promises about a create-plant body, written independently of the server's
// parser and schemas: the fuzz test compares the server's answers with these rules.

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the rule
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * The fields beside `id` the README promises, in the contract's order: each a string of
 * 1..maxLength characters, `required` or not. oracle.test.ts checks this table against the
 * contract (a field added there fails that test until it is added here).
 */
export const TEXT_FIELDS: Readonly<
  Record<string, { readonly maxLength: number; readonly required: boolean }>
> = {
  name: { maxLength: 200, required: true },
  tag: { maxLength: 100, required: false },
};

/** The fields of a plant the server should create: each text field given, by name. */
export type PlantFields = Readonly<Record<string, string>>;

/** What a body should produce when everything else about the request is right. */
export type BodyVerdict =
  | { readonly kind: 'create'; readonly id: bigint; readonly plant: PlantFields }
  | { readonly kind: 'error'; readonly status: 400; readonly code: 40001 | 40002 }
  /** Either code: see `sameValue`. */
  | { readonly kind: 'error'; readonly status: 400; readonly code: readonly [40001, 40002] };

/** True for an id the API accepts: an exact integer in the int64 range. */
export function isValidId(piece: JsonPiece): boolean {
  return piece.int !== undefined && piece.int >= INT64_MIN && piece.int <= INT64_MAX;
}

/**
 * True for a text field's value (TEXT_FIELDS): a string of 1..max characters — Unicode
 * code points, as JSON Schema's maxLength counts — well-formed, without control characters.
 */
export function isValidText(piece: JsonPiece, maxLength: number): boolean {
  const s = piece.str;
  const length = s === undefined ? 0 : [...s].length;
  return (
    s !== undefined && length >= 1 && length <= maxLength && s.isWellFormed() && !CONTROL.test(s)
  );
}

/**
 * Whether two pieces mean the same JSON value (as far as the test can tell from how it built
 * them). `unsure` for two different arrays or objects: the server's parser (lossless-json
 * 4.3) compares a repeated key's values with a deep equality that takes `[]` and `{}` (or
 * `[1]` and `{"0":1}`) for equal, so such a repeat may pass as harmless; the body is refused
 * either way (containers are never valid field values), only the code may be 40001.
 */
function sameValue(a: JsonPiece, b: JsonPiece): boolean | 'unsure' {
  if (a.int !== undefined || b.int !== undefined) return a.int === b.int;
  if (a.str !== undefined || b.str !== undefined) return a.str === b.str;
  if (a.text === b.text) return true;
  return /^[[{]/.test(a.text) && /^[[{]/.test(b.text) ? 'unsure' : false;
}

/**
 * The answer a JSON object body deserves: a key repeated with another value is malformed JSON
 * (40002, checked while parsing, so first); otherwise it is a NewPlant (create) when it has
 * exactly a valid `id`, each required text field valid and each optional one valid or absent,
 * and no other key; else 40001.
 *
 * @example
 * verdictOf([['id', { text: '1', int: 1n }], ['name', { text: '"a"', str: 'a' }]]);
 * // { kind: 'create', id: 1n, plant: { name: 'a' } }
 */
export function verdictOf(members: Members): BodyVerdict {
  const seen = new Map<string, JsonPiece>();
  let unsure = false;
  for (const [key, value] of members) {
    const earlier = seen.get(key);
    const same = earlier === undefined || sameValue(earlier, value);
    if (same === false) return { kind: 'error', status: 400, code: 40002 };
    if (same === 'unsure') unsure = true;
    seen.set(key, value);
  }
  if (unsure) return { kind: 'error', status: 400, code: [40001, 40002] };
  const id = seen.get('id');
  const known = [...seen.keys()].every((key) => key === 'id' || Object.hasOwn(TEXT_FIELDS, key));
  let valid = known && id !== undefined && isValidId(id);
  const plant: Record<string, string> = {};
  for (const [field, { maxLength, required }] of Object.entries(TEXT_FIELDS)) {
    const piece = seen.get(field);
    if (piece === undefined) valid &&= !required;
    else if (isValidText(piece, maxLength)) plant[field] = piece.str as string;
    else valid = false;
  }
  return valid && id !== undefined
    ? { kind: 'create', id: id.int as bigint, plant }
    : { kind: 'error', status: 400, code: 40001 };
}
