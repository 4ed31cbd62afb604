import { type Field, storedValue, type ValueOf } from './field-kinds.ts';

export type { Field, FieldType } from './field-kinds.ts';

/**
 * The fields of Plant (NewPlant is these plus the required int64 `id`), in the contract's
 * order: the one place a field's name, JSON type, bounds and description are written. The
 * schemas (plant.ts), the OpenAPI document, the stores' columns and row mapping, the fuzz model
 * and the messages that name fields are derived from it; docs/recipes/adding-a-field.md adds
 * one.
 */
export const FIELDS = {
  name: {
    type: 'string',
    maxLength: 200,
    required: true,
    description: 'The name of the plant',
  },
  tag: {
    type: 'string',
    maxLength: 100,
    required: false,
    description: 'Tag that specifies the type of the plant',
  },
} as const satisfies Record<string, Field>;

type Fields = typeof FIELDS;

/** Longest accepted plant `name`, in characters (Unicode code points, as JSON Schema counts). */
export const NAME_MAX_LENGTH = FIELDS.name.maxLength;
/** Longest accepted plant `tag`, in characters (Unicode code points, as JSON Schema counts). */
export const TAG_MAX_LENGTH = FIELDS.tag.maxLength;

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
 * PLANT_FIELDS; // ['name', 'tag']
 */
export const PLANT_FIELDS = Object.keys(FIELDS) as PlantField[];

/** Each field with its name, in order. */
export const FIELD_LIST: readonly (Field & { readonly name: PlantField })[] = PLANT_FIELDS.map(
  (name) => ({ name, ...(FIELDS[name] as Field) }),
);

/**
 * The fields as prose, in order, joined with `and` or `or`: the messages that name the fields
 * are built with it.
 *
 * @example
 * fieldNames('or'); // 'name or tag'
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
