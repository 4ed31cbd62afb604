import { NewPlant } from '@plant-store/schema';
import { validateBody } from './validate-body.ts';

/** The verdict of {@link validateNewPlant}. */
export type NewPlantVerdict = { ok: true; value: NewPlant } | { ok: false; message: string };

/**
 * Checks a create-plant body with the same `NewPlant` schema the client sends with and the
 * server validates with. Pure: no request is made.
 *
 * @example
 * validateNewPlant({ id: 2n ** 63n - 1n, name: 'Fern' }); // { ok: true, value: { id: 9223372036854775807n, name: 'Fern' } }
 * validateNewPlant({ id: 1, name: 'Fern', colour: 'green' }); // { ok: false, message: 'colour: unknown property' }
 */
export function validateNewPlant(input: unknown): NewPlantVerdict {
  const verdict = validateBody(NewPlant, input);
  return verdict.ok ? { ok: true, value: verdict.value } : { ok: false, message: verdict.message };
}
