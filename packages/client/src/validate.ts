import { formatIssues, NewPlant } from '@plant-store/schema/shapes';
import type * as z from 'zod/mini';

/** A schema's verdict on a value: the parsed value, or every issue and their message. */
export type BodyVerdict<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly message: string; readonly issues: readonly z.core.$ZodIssue[] };

/**
 * Runs `schema` on `input`; a refusal carries the issues and `formatIssues(issues)`, the
 * message the server sends for the same problems.
 *
 * @example
 * validateBody(NewPlant, { id: 1, name: '' });
 * // { ok: false, message: 'name: must not be empty', issues: [ … ] }
 */
export function validateBody<S extends z.ZodMiniType>(
  schema: S,
  input: unknown,
): BodyVerdict<z.output<S>> {
  const result = schema.safeParse(input);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, message: formatIssues(result.error.issues), issues: result.error.issues };
}

/** The verdict of {@link validateNewPlant}. */
export type NewPlantVerdict = { ok: true; value: NewPlant } | { ok: false; message: string };

/**
 * Checks a create-plant body with the same `NewPlant` schema the client sends with and the
 * server validates with. Pure: no request is made.
 *
 * @example
 * validateNewPlant({ id: 2n ** 63n - 1n, name: 'Fern' }); // { ok: true, value: { id: 9223372036854775807n, name: 'Fern' } }
 * validateNewPlant({ id: 1, name: 'Fern', wheels: 4 }); // { ok: false, message: 'wheels: unknown property' }
 */
export function validateNewPlant(input: unknown): NewPlantVerdict {
  const verdict = validateBody(NewPlant, input);
  return verdict.ok ? { ok: true, value: verdict.value } : { ok: false, message: verdict.message };
}
