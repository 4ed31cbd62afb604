import type * as z from 'zod/mini';
import { describeValue } from './describe-value.ts';
import { isLosslessNumber } from './lossless-number.ts';
import { boundedText } from './text.ts';
import type { ZodFunctions } from './zod-functions.ts';

interface Common {
  /** Whether a NewPlant must carry it; an optional field may be left out (never `null`). */
  readonly required: boolean;
  /** What it means, for the document and the docs. */
  readonly description: string;
}

/**
 * One field of Plant, as plant-fields.ts declares it: its JSON type and its bounds. `string`:
 * 1..`maxLength` characters (code points), well-formed, no control character; `integer`: an
 * exact integer from `minimum` to `maximum` (both safe integers); `boolean`: `true` or `false`.
 */
export type Field =
  | (Common & { readonly type: 'string'; readonly maxLength: number })
  | (Common & { readonly type: 'integer'; readonly minimum: number; readonly maximum: number })
  | (Common & { readonly type: 'boolean' });

/** The JSON types a field can have. */
export type FieldType = Field['type'];

/** The TypeScript value of a field of type `T`. */
export type ValueOf<F extends Field> = F extends { type: 'string' }
  ? string
  : F extends { type: 'integer' }
    ? number
    : boolean;

/** The zod schema of a field: optional when the field is not required. */
export type SchemaOf<F extends Field> = F['required'] extends true
  ? z.ZodMiniType<ValueOf<F>, ValueOf<F>>
  : z.ZodMiniOptional<z.ZodMiniType<ValueOf<F>, ValueOf<F>>>;

/** `must be X` for a wrong value, with `, or left out` for an optional field's wrong type. */
function problem(expected: string, field: Field, input: unknown, wrongType: boolean): string {
  if (input === undefined) return 'is required';
  const leaveOut = wrongType && !field.required ? ', or left out' : '';
  return `must be ${expected}${leaveOut} (got ${describeValue(input)})`;
}

/**
 * The zod schema of `field`, built with `zod` (zod/mini or full zod), its problems phrased in
 * the catalog's words. A number or a boolean is one function check on `z.unknown()` (the
 * document states its type and bounds: openapi/classic.ts): a JSON integer too large for a
 * `number` arrives as a `bigint`, a non-integer a double would round as a `LosslessNumber`.
 *
 * @example
 * fieldSchema(z, { type: 'integer', minimum: 1, maximum: 9, required: true, description: '' });
 */
export function fieldSchema(
  zod: Pick<ZodFunctions, 'string' | 'unknown'>,
  field: Field,
): z.ZodMiniType<unknown> {
  if (field.type === 'string') {
    return boundedText(zod, field.maxLength, field.required ? 'required' : 'optional');
  }
  const expected =
    field.type === 'integer' ? `an integer from ${field.minimum} to ${field.maximum}` : 'a boolean';
  return zod.unknown().check((payload) => {
    const input = payload.value;
    const wrongType =
      field.type === 'integer'
        ? typeof input !== 'number' && typeof input !== 'bigint' && !isLosslessNumber(input)
        : typeof input !== 'boolean';
    const valid =
      field.type === 'integer'
        ? Number.isInteger(input) &&
          Number(input) >= field.minimum &&
          Number(input) <= field.maximum
        : !wrongType;
    if (!valid) {
      const message = problem(expected, field, input, wrongType);
      payload.issues.push({ code: 'custom', input, message });
    }
  }) as z.ZodMiniType<unknown>;
}

/**
 * The value of a field as a store gives it back: an integer as a `bigint`, `number` or digit
 * string, a boolean as `true`/`false` or 1/0 (SQLite has no boolean).
 *
 * @example
 * storedValue({ type: 'boolean', required: false, description: '' }, 1n); // true
 */
export function storedValue(field: Field, stored: unknown): string | number | boolean {
  if (field.type === 'integer') return Number(stored);
  if (field.type === 'boolean') return typeof stored === 'boolean' ? stored : Number(stored) !== 0;
  return String(stored);
}
