import * as kind from './field-kinds.ts';
import { type Field, storedValue, type ValueOf } from './field-kinds.ts';

export { boolean, type Field, type FieldType, integer, text } from './field-kinds.ts';

/**
 * The fields of Plant (NewPlant is these plus the required int64 `id`), in the contract's
 * order: the one place a field's name, JSON type and bounds are written, and below, its
 * description. The schemas (plant.ts), the OpenAPI document, the stores' columns and row
 * mapping, the fuzz model and the messages that name fields are derived from them;
 * "Adding a field" in docs/architecture.md adds one.
 */
export const FIELDS = {
  name: kind.text({ maxLength: 200, required: true }),
  tag: kind.text({ maxLength: 100, required: false }),
} satisfies Record<string, Field>;

/**
 * What each field means, for the document and the docs: apart from FIELDS only so that a
 * browser bundle, which needs the rules but not the prose, leaves it out.
 */
export const FIELD_DESCRIPTIONS: Record<keyof typeof FIELDS, string> = {
  name: 'The name of the plant',
  tag: 'Tag that specifies the type of the plant',
};

type Fields = typeof FIELDS;

/** Longest accepted plant `name`, in characters (Unicode code points, as JSON Schema counts). */
export const NAME_MAX_LENGTH = /* @__PURE__ */ (() => FIELDS.name.maxLength)();
/** Longest accepted plant `tag`, in characters (Unicode code points, as JSON Schema counts). */
export const TAG_MAX_LENGTH = /* @__PURE__ */ (() => FIELDS.tag.maxLength)();

/** A field of Plant: every field of NewPlant but `id`. */
export type PlantField = keyof Fields;

type RequiredField = {
  [K in PlantField]: Fields[K]['required'] extends true ? K : never;
}[PlantField];
type Presence = { [R in RequiredField]: 0 } & { [O in Exclude<PlantField, RequiredField>]?: 0 };

/**
 * A plant as the API returns it: an optional field is absent or holds its value, never
 * `undefined` (JSON cannot carry `undefined`), so the type a consumer generates from the document
 * accepts it under `exactOptionalPropertyTypes`.
 */
export type Plant = { [K in keyof Presence]: ValueOf<Fields[K]> };

/**
 * Plant's fields in the contract's order: the list the stores' columns, the bench peers and
 * the test helpers take theirs from.
 *
 * @example
 * PLANT_FIELDS; // the keys of FIELDS, in order: ['name', 'tag', …]
 */
export const PLANT_FIELDS = /* @__PURE__ */ Object.keys(FIELDS) as PlantField[];

/** Each field with its name, in order. */
export const FIELD_LIST: readonly (Field & { readonly name: PlantField })[] =
  /* @__PURE__ */ PLANT_FIELDS.map((name) => ({ ...(FIELDS[name] as Field), name }));

/**
 * The fields as prose, in order, joined with `and` or `or`: the messages that name the fields
 * are built with it.
 *
 * @example
 * fieldNames('or'); // the names, the last after 'or': 'a or b' for fields a and b, 'a, b or c' for three
 */
export function fieldNames(conjunction: 'and' | 'or', quote = (name: string) => name): string {
  const names = PLANT_FIELDS.map(quote);
  const last = names.pop();
  return names.length === 0 ? (last ?? '') : `${names.join(', ')} ${conjunction} ${last}`;
}

/**
 * A Plant from a stored row or a NewPlant: each field that holds a value (NULL and absent alike
 * mean "not given"), read as the field's type (a store may give an integer as a `bigint` or a
 * string, a boolean as 1/0).
 *
 * @example
 * plantOf({ id: 1n, name: 'Fern', tag: null }); // { name: 'Fern' }
 */
export function plantOf(row: { readonly [Field in PlantField]?: unknown }): Plant {
  const plant: Record<string, unknown> = {};
  for (const field of FIELD_LIST) {
    const value = row[field.name];
    if (value !== null && value !== undefined) plant[field.name] = storedValue(field, value);
  }
  return plant as Plant;
}
