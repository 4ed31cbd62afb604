import { buildOpenApiDocument } from '@plant-store/schema/openapi';
import type { JsonPiece, Members } from './arbitraries.ts';

// What the README and the published document promise about a create-plant body, written
// independently of the server's parser and schemas: the fuzz test compares the server's answers
// with these rules. Only the fields and their bounds are read, from the document.

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the rule
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** A field beside `id` as the model checks it: its JSON type, bounds and whether it is required. */
export type FieldRule =
  | { readonly type: 'string'; readonly required: boolean; readonly maxLength: number }
  | {
      readonly type: 'integer';
      readonly required: boolean;
      readonly minimum: bigint;
      readonly maximum: bigint;
    }
  | { readonly type: 'boolean'; readonly required: boolean };

interface PropertySchema {
  readonly type?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
}

/**
 * The rules of NewPlant's fields but `id`, in the document's order, read from its schema. A type
 * the model does not know is refused with what to do.
 */
export function fieldRules(schema: {
  readonly properties: Record<string, PropertySchema>;
  readonly required: readonly string[];
}): Record<string, FieldRule> {
  const rules: Record<string, FieldRule> = {};
  for (const [field, property] of Object.entries(schema.properties)) {
    if (field === 'id') continue;
    const required = schema.required.includes(field);
    const { type, minLength, maxLength, minimum, maximum } = property;
    if (type === 'string' && minLength === 1 && maxLength !== undefined) {
      rules[field] = { type, required, maxLength };
    } else if (type === 'integer' && minimum !== undefined && maximum !== undefined) {
      rules[field] = { type, required, minimum: BigInt(minimum), maximum: BigInt(maximum) };
    } else if (type === 'boolean') {
      rules[field] = { type, required };
    } else {
      throw new Error(
        `apps/server/test/security/oracle.ts models no field like ${field} (${JSON.stringify(property)}): add its rule to fieldRules and isValidValue, and its values to arbitraries.ts (fieldPiece)`,
      );
    }
  }
  return rules;
}

/** The fields beside `id` the document promises, in the contract's order. */
export const FIELD_RULES: Readonly<Record<string, FieldRule>> = fieldRules(
  buildOpenApiDocument().components?.schemas?.NewPlant as Parameters<typeof fieldRules>[0],
);

/** The fields of a plant the server should create: each field given, by name. */
export type PlantFields = Readonly<Record<string, string | number | boolean>>;

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
 * True for a string field's value: a string of 1..max characters — Unicode code points, as
 * JSON Schema's maxLength counts — well-formed, without control characters.
 */
export function isValidText(piece: JsonPiece, maxLength: number): boolean {
  const s = piece.str;
  const length = s === undefined ? 0 : [...s].length;
  return (
    s !== undefined && length >= 1 && length <= maxLength && s.isWellFormed() && !CONTROL.test(s)
  );
}

/** The value `piece` gives a field with `rule`, or undefined when the rule refuses it. */
export function valueFor(piece: JsonPiece, rule: FieldRule): string | number | boolean | undefined {
  switch (rule.type) {
    case 'string':
      return isValidText(piece, rule.maxLength) ? piece.str : undefined;
    case 'integer':
      return piece.int !== undefined && piece.int >= rule.minimum && piece.int <= rule.maximum
        ? Number(piece.int)
        : undefined;
    case 'boolean':
      return piece.text === 'true' ? true : piece.text === 'false' ? false : undefined;
  }
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
 * exactly a valid `id`, each required field valid and each optional one valid or absent,
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
  const known = [...seen.keys()].every((key) => key === 'id' || Object.hasOwn(FIELD_RULES, key));
  let valid = known && id !== undefined && isValidId(id);
  const plant: Record<string, string | number | boolean> = {};
  for (const [field, rule] of Object.entries(FIELD_RULES)) {
    const piece = seen.get(field);
    const value = piece === undefined ? undefined : valueFor(piece, rule);
    if (piece === undefined) valid &&= !rule.required;
    else if (value !== undefined) plant[field] = value;
    else valid = false;
  }
  return valid && id !== undefined
    ? { kind: 'create', id: id.int as bigint, plant }
    : { kind: 'error', status: 400, code: 40001 };
}
