import { describeValue } from './describe-value.ts';
import type { ZodFunctions } from './zod-functions.ts';

/** Longest accepted plant `name`, in characters (Unicode code points, as JSON Schema counts). */
export const NAME_MAX_LENGTH = 200;
/** Longest accepted plant `tag`, in characters (Unicode code points, as JSON Schema counts). */
export const TAG_MAX_LENGTH = 100;

/**
 * The JSON Schema `pattern` (ECMA-262, as JSON Schema 2020-12 reads it) of a name or tag: no C0
 * control, no DEL and no C1 control anywhere. The same text is the server's check, so the
 * document states exactly the rule the server enforces.
 */
export const NO_CONTROL_CHARACTERS_PATTERN = '^[^\\u0000-\\u001F\\u007F-\\u009F]*$';
const NO_CONTROL_CHARACTERS = new RegExp(NO_CONTROL_CHARACTERS_PATTERN, 'u');

/**
 * A string of 1..`maxLength` characters that is well-formed Unicode (no lone surrogate)
 * and holds no control character, built with `z` (zod/mini or full zod). JSON Schema has no
 * keyword for "well-formed": that rule is stated in the document's description instead. A value
 * of another type is refused with `must be a string (got …)`; for an `optional` field the
 * message adds that it may be left out (a `tag: null` is not "no tag").
 *
 * @example
 * const Name = boundedText(z, 200);
 */
export function boundedText(
  z: Pick<ZodFunctions, 'string' | 'minLength' | 'maxLength' | 'refine'>,
  maxLength: number,
  presence: 'required' | 'optional' = 'required',
) {
  const expected = presence === 'optional' ? 'must be a string, or left out' : 'must be a string';
  const wrongType = (issue: { readonly input?: unknown }) =>
    issue.input === undefined ? 'is required' : `${expected} (got ${describeValue(issue.input)})`;
  return z.string({ error: wrongType }).check(
    z.minLength(1, 'must not be empty'),
    z.maxLength(maxLength, `must be at most ${maxLength} characters`),
    z.refine((s) => s.isWellFormed(), 'must be well-formed Unicode (no lone surrogate)'),
    z.refine((s) => NO_CONTROL_CHARACTERS.test(s), 'must not contain control characters'),
  );
}
