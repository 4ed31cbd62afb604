import type { core } from 'zod/mini';
import { describeValue } from './describe-value.ts';
import type { ZodFunctions } from './zod-functions.ts';

/**
 * The JSON Schema `pattern` (ECMA-262, as JSON Schema 2020-12 reads it) of a string field: no C0
 * control, no DEL and no C1 control anywhere. The same text is the server's check, so the
 * document states exactly the rule the server enforces.
 */
export const NO_CONTROL_CHARACTERS_PATTERN = '^[^\\u0000-\\u001F\\u007F-\\u009F]*$';
const NO_CONTROL_CHARACTERS = new RegExp(NO_CONTROL_CHARACTERS_PATTERN, 'u');

/**
 * The rules of a string field as one function check: 1..`maxLength` characters (code points),
 * well-formed Unicode, no control character. Each broken rule adds the issue zod's own check
 * would (`z.minLength(1)` / `z.maxLength(maxLength)`: `too_small` / `too_big` with
 * `origin: 'string'`, the bound and `inclusive`; `z.refine`: `custom`), and every rule is checked
 * (`continue: true`), as with those checks; one function keeps those checks out of a browser
 * bundle. The OpenAPI builder states the bounds as `minLength` / `maxLength` and the pattern
 * (openapi/classic.ts).
 *
 * @example
 * z.string().check(textRules(200));
 */
export function textRules(maxLength: number) {
  return (payload: core.ParsePayload<string>): void => {
    const input = payload.value;
    const { issues } = payload;
    if (input === '') {
      issues.push({
        origin: 'string',
        code: 'too_small',
        minimum: 1,
        inclusive: true,
        input,
        message: 'must not be empty',
        continue: true,
      });
    } else if (input.length > maxLength && Array.from(input).length > maxLength) {
      issues.push({
        origin: 'string',
        code: 'too_big',
        maximum: maxLength,
        inclusive: true,
        input,
        message: `must be at most ${maxLength} characters`,
        continue: true,
      });
    }
    if (!input.isWellFormed()) {
      const message = 'must be well-formed Unicode (no lone surrogate)';
      issues.push({ code: 'custom', input, message, continue: true });
    }
    if (!NO_CONTROL_CHARACTERS.test(input)) {
      const message = 'must not contain control characters';
      issues.push({ code: 'custom', input, message, continue: true });
    }
  };
}

/**
 * A string of 1..`maxLength` characters that is well-formed Unicode (no lone surrogate)
 * and holds no control character, built with `z` (zod/mini or full zod). JSON Schema has no
 * keyword for "well-formed": that rule is stated in the document's description instead. A value
 * of another type is refused with `must be a string (got …)`; for an optional field (`required`
 * false) the message adds that it may be left out (a `tag: null` is not "no tag").
 *
 * @example
 * const Name = boundedText(z, 200);
 */
export function boundedText(z: Pick<ZodFunctions, 'string'>, maxLength: number, required = true) {
  const expected = required ? 'must be a string' : 'must be a string, or left out';
  const wrongType = (issue: { readonly input?: unknown }) =>
    issue.input === undefined ? 'is required' : `${expected} (got ${describeValue(issue.input)})`;
  return z.string({ error: wrongType }).check(textRules(maxLength));
}
