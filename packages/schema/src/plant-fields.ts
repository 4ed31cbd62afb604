import { NewPlant, type Plant } from './plant.ts';

/** A field of Plant: every field of NewPlant but `id`, each a string. */
export type PlantField = Exclude<keyof NewPlant, 'id'>;

// Plant's type is written by hand in plant.ts: it must name the same fields as NewPlant.
const sameFields: [PlantField, keyof Plant] extends [keyof Plant, PlantField] ? true : never = true;
void sameFields;

/**
 * Plant's fields in the contract's order, read from NewPlant's zod object: the one list the
 * stores' columns, the bench peers and the test helpers take theirs from. A field left out of
 * a NewPlant is stored as NULL and left out of the Plant.
 *
 * @example
 * PLANT_FIELDS; // ['name', 'tag']
 */
export const PLANT_FIELDS = Object.keys(NewPlant.shape).filter(
  (key): key is PlantField => key !== 'id',
);

/**
 * A Plant from a stored row or a NewPlant: each of its fields that holds a string (NULL and
 * absent alike mean "not given").
 *
 * @example
 * plantOf({ id: 1n, name: 'Fern', tag: null }); // { name: 'Fern' }
 */
export function plantOf(
  row: { readonly [Field in PlantField]?: string | null | undefined },
): Plant {
  const plant: Record<string, string> = {};
  for (const field of PLANT_FIELDS) {
    const value = row[field];
    if (typeof value === 'string') plant[field] = value;
  }
  return plant as Plant;
}
