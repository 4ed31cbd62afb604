import * as z from 'zod/mini';
import { describeValue } from './describe-value.ts';
import { documented } from './documented.ts';
import { Int64 } from './int64.ts';
import type { FlatRecordLimits } from './json.ts';
import { boundedText, NAME_MAX_LENGTH, TAG_MAX_LENGTH } from './text.ts';

const name = boundedText(NAME_MAX_LENGTH, 'The name of the plant');
const tag = boundedText(TAG_MAX_LENGTH, 'Tag that specifies the type of the plant', 'optional');

// A body that is not an object at all (`[]`, `5`, `null`): said in the catalog's words.
const objectOnly = {
  error: (issue: z.core.$ZodRawIssue) =>
    issue.code !== 'invalid_type'
      ? undefined
      : issue.input === undefined
        ? 'is required'
        : `must be an object (got ${describeValue(issue.input)})`,
};

const PlantSchema = documented(z.object({ name, tag: z.optional(tag) }, objectOnly), {
  id: 'Plant',
  description: 'A plant in the store, as returned by the API (it has no `id`).',
  example: { name: 'Monstera', tag: 'indoor' },
});

/**
 * A plant as the API returns it: `tag` is absent or a string, never `undefined` (JSON cannot
 * carry `undefined`). Typed exactly so, the type a consumer generates from the document
 * (`{ name: string; tag?: string }`) accepts it under `exactOptionalPropertyTypes`.
 */
export type Plant = { name: string; tag?: string };

/**
 * The Plant schema. Not strict: a later minor version may add optional response fields, and
 * a client must keep working when it does. Its output is typed as the exact {@link Plant}:
 * zod types an optional key as `string | undefined`, although no value read from JSON or
 * built by `toPlant` ever holds `undefined`.
 */
export const Plant = PlantSchema as unknown as z.ZodMiniType<Plant, z.input<typeof PlantSchema>>;

/**
 * The body of a create-plant request: every field of Plant plus the required int64 `id`.
 * Strict: an unknown property is an error, never silently dropped.
 */
export const NewPlant = documented(
  z.strictObject({ id: Int64, name, tag: z.optional(tag) }, objectOnly),
  {
    id: 'NewPlant',
    description:
      'A plant to create: all fields of Plant plus the required `id`. Unknown properties are rejected.',
    example: { id: 10, name: 'Monstera', tag: 'indoor' },
  },
);
/**
 * How far `parseJson` reads a body meant to be a NewPlant, a flat record (`flatRecord`): its
 * three fields, each key repeated with the same value at most a few times (16 members in all),
 * and strings up to 12 characters of JSON text (`\uD83C\uDF3F`) per character of the longest
 * name and then some, so a string cut there is still too long wherever a name's limit applies.
 */
export const NEW_PLANT_JSON_LIMITS: FlatRecordLimits = {
  maxMembers: 16,
  maxStringLength: 12 * (NAME_MAX_LENGTH + 2),
};

/** What a caller may pass: `id` as a safe-integer `number` or as a `bigint`. */
export type NewPlantInput = z.input<typeof NewPlant>;
/** What validation yields: `id` always a `bigint`. */
export type NewPlant = z.output<typeof NewPlant>;

/**
 * The Plant a NewPlant becomes in a response: the same name and tag, no id.
 *
 * @example
 * toPlant({ id: 1n, name: 'Fern' }); // { name: 'Fern' }
 */
export function toPlant(newPlant: Pick<NewPlant, 'name' | 'tag'>): Plant {
  return newPlant.tag === undefined
    ? { name: newPlant.name }
    : { name: newPlant.name, tag: newPlant.tag };
}
