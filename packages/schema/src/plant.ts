import * as z from 'zod/mini';
import { describeValue } from './describe-value.ts';
import type { Field, SchemaOf } from './field-kinds.ts';
import { unknownKeys } from './format-issues.ts';
import { Int64, int64 } from './int64.ts';
import { miniString } from './mini-string.ts';
import { FIELDS, type PlantField, type Plant as PlantOf, plantOf } from './plant-fields.ts';
import type { ZodFunctions } from './zod-functions.ts';

// Every problem a Plant or NewPlant can have is phrased here (and in field-kinds.ts, text.ts,
// int64.ts), in the catalog's words, so no zod locale is needed (zod/mini loads none: a browser
// bundle stays without one) and the client and the server phrase every problem alike: a body
// that is not an object at all (`[]`, `5`, `null`), and unknown properties (in the lines
// `formatIssues` writes for them, bounded whatever the keys).
const objectOnly = {
  error: (issue: z.core.$ZodRawIssue) => {
    if (issue.code === 'unrecognized_keys') return unknownKeys([], issue.keys).join('; ');
    if (issue.code !== 'invalid_type') return undefined;
    return issue.input === undefined
      ? 'is required'
      : `must be an object (got ${describeValue(issue.input)})`;
  },
};

/**
 * Plant and NewPlant built with `zod` (zod/mini for the contract, full zod for the OpenAPI
 * builder) from the field list (plant-fields.ts). NewPlant is every field of Plant plus the
 * required int64 `id`, and strict: an unknown property is an error, never silently dropped.
 * Plant is not strict: a later minor version may add optional response fields, and a client
 * must keep working when it does.
 */
export function plantSchemas(
  zod: Pick<ZodFunctions, 'object' | 'strictObject' | 'optional' | 'string' | 'unknown'>,
  id = int64(zod),
) {
  const shape = Object.fromEntries(
    Object.entries(FIELDS).map(([name, field]: [string, Field]) => {
      const schema = field.schema(zod);
      return [name, field.required ? schema : zod.optional(schema)];
    }),
  ) as { [K in PlantField]: SchemaOf<(typeof FIELDS)[K]> };
  return {
    Plant: zod.object(shape, objectOnly),
    NewPlant: zod.strictObject({ id, ...shape }, objectOnly),
  };
}

// Only the functions used, not the namespace: a bundler then leaves the rest of zod out; strings
// are `miniString` (a check on `z.unknown()`), so no zod string schema reaches a browser bundle.
const schemas = plantSchemas(
  {
    object: z.object,
    strictObject: z.strictObject,
    optional: z.optional,
    string: miniString,
    unknown: z.unknown,
  },
  Int64,
);

/** A plant as the API returns it (plant-fields.ts): no `id`, an optional field absent or set. */
export type Plant = PlantOf;

/**
 * The Plant schema. Not strict: a later minor version may add optional response fields, and
 * a client must keep working when it does. Its output is typed as the exact {@link Plant}:
 * zod types an optional key as `string | undefined`, although no value read from JSON or
 * built by `toPlant` ever holds `undefined`.
 */
export const Plant = schemas.Plant as unknown as z.ZodMiniType<
  Plant,
  z.input<typeof schemas.Plant>
>;

/**
 * The body of a create-plant request: every field of Plant plus the required int64 `id`.
 * Strict: an unknown property is an error, never silently dropped.
 */
export const NewPlant = schemas.NewPlant;
/** What a caller may pass: `id` as a safe-integer `number` or as a `bigint`. */
export type NewPlantInput = z.input<typeof NewPlant>;
/** What validation yields: `id` always a `bigint`. */
export type NewPlant = z.output<typeof NewPlant>;

/**
 * The Plant a NewPlant becomes in a response: the same fields, no id.
 *
 * @example
 * toPlant({ id: 1n, name: 'Fern' }); // { name: 'Fern' }
 */
export function toPlant(newPlant: Pick<NewPlant, PlantField>): Plant {
  return plantOf(newPlant);
}
