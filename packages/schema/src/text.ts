import * as z from 'zod/mini';
import { documented } from './documented.ts';

/** Longest accepted plant `name`, in characters (Unicode code points, as JSON Schema counts). */
export const NAME_MAX_LENGTH = 200;
/** Longest accepted plant `tag`, in characters (Unicode code points, as JSON Schema counts). */
export const TAG_MAX_LENGTH = 100;

// C0 controls, DEL and C1 controls: never part of a plant's name or tag.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * A string of 1..`maxLength` characters that is well-formed Unicode (no lone surrogate)
 * and holds no control character.
 *
 * @example
 * const Name = boundedText(200, 'The name of the plant');
 */
export function boundedText(maxLength: number, description: string) {
  const text = z.string().check(
    z.minLength(1, 'must not be empty'),
    z.maxLength(maxLength, `must be at most ${maxLength} characters`),
    z.refine((s) => s.isWellFormed(), 'must be well-formed Unicode (no lone surrogate)'),
    z.refine((s) => !CONTROL_CHARACTER.test(s), 'must not contain control characters'),
  );
  return documented(text, { description, minLength: 1, maxLength });
}
