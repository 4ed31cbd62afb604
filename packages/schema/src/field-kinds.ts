import type * as z from 'zod/mini';
import { describeValue } from './describe-value.ts';
import { isLosslessNumber } from './lossless-number.ts';
import { boundedText } from './text.ts';
import type { ZodFunctions } from './zod-functions.ts';

type Zod = Pick<ZodFunctions, 'string' | 'unknown'>;

/**
 * A field of Plant as plant-fields.ts declares it, with one of the constructors below: its JSON
 * type, its bounds, whether a NewPlant must carry it (an optional field may be left out, never
 * `null`), and its zod schema (built with zod/mini or full zod; the document states its bounds,
 * openapi/classic.ts). Each type's checks reach a browser bundle only when a field has it.
 */
export type Field =
  | ReturnType<typeof text>
  | ReturnType<typeof integer>
  | ReturnType<typeof boolean>;

/** The JSON types a field can have. */
export type FieldType = Field['type'];

/** The TypeScript value of a field. */
export type ValueOf<F extends Field> = F extends { type: 'string' }
  ? string
  : F extends { type: 'integer' }
    ? number
    : boolean;

/** The zod schema of a field: optional when the field is not required. */
export type SchemaOf<F extends Field> = F['required'] extends true
  ? z.ZodMiniType<ValueOf<F>, ValueOf<F>>
  : z.ZodMiniOptional<z.ZodMiniType<ValueOf<F>, ValueOf<F>>>;

/**
 * A string of 1..`maxLength` characters (code points), well-formed, no control character.
 *
 * @example
 * text({ maxLength: 50, required: false });
 */
export function text<const R extends boolean>(rules: { maxLength: number; required: R }) {
  return {
    type: 'string' as const,
    ...rules,
    schema: (zod: Zod): z.ZodMiniType<unknown> => boundedText(zod, rules.maxLength, rules.required),
  };
}

/**
 * An exact integer from `minimum` to `maximum` (both safe integers).
 *
 * @example
 * integer({ minimum: 1, maximum: 10000, required: false });
 */
export function integer<const R extends boolean>(rules: {
  minimum: number;
  maximum: number;
  required: R;
}) {
  const { minimum, maximum, required } = rules;
  return {
    type: 'integer' as const,
    ...rules,
    schema: (zod: Zod) =>
      valueSchema(
        zod,
        `an integer from ${minimum} to ${maximum}`,
        required,
        (input) => Number.isInteger(input) && input >= minimum && input <= maximum,
        // A number out of bounds is of the right type: leaving it out is no remedy to name.
        (input) =>
          typeof input === 'number' || typeof input === 'bigint' || isLosslessNumber(input),
      ),
  };
}

/**
 * `true` or `false`.
 *
 * @example
 * boolean({ required: false });
 */
export function boolean<const R extends boolean>(rules: { required: R }) {
  const accepts = (input: unknown) => typeof input === 'boolean';
  return {
    type: 'boolean' as const,
    ...rules,
    schema: (zod: Zod) => valueSchema(zod, 'a boolean', rules.required, accepts, accepts),
  };
}

/**
 * One function check on `z.unknown()`, its problem phrased in the catalog's words: a JSON
 * integer too large for a `number` arrives as a `bigint`, a non-integer a double would round as
 * a `LosslessNumber`, so the check sees every number the parser gives.
 */
function valueSchema(
  zod: Zod,
  expected: string,
  required: boolean,
  accepts: (input: number) => boolean,
  rightType: (input: unknown) => boolean,
): z.ZodMiniType<unknown> {
  return zod.unknown().check((payload) => {
    const input = payload.value;
    if (accepts(input as number)) return;
    const leaveOut = required || rightType(input) ? '' : ', or left out';
    const message =
      input === undefined
        ? 'is required'
        : `must be ${expected}${leaveOut} (got ${describeValue(input)})`;
    payload.issues.push({ code: 'custom', input, message });
  }) as z.ZodMiniType<unknown>;
}

/**
 * The value of a field as a store gives it back: an integer as a `bigint`, `number` or digit
 * string, a boolean as `true`/`false` or 1/0 (SQLite has no boolean).
 *
 * @example
 * storedValue(boolean({ required: false }), 1n); // true
 */
export function storedValue(field: Field, stored: unknown): string | number | boolean {
  if (field.type === 'integer') return Number(stored);
  if (field.type === 'boolean') return typeof stored === 'boolean' ? stored : Number(stored) !== 0;
  return String(stored);
}
