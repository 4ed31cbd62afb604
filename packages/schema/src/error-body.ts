import * as z from 'zod/mini';
import type { ZodFunctions } from './zod-functions.ts';

/**
 * True for a 32-bit signed integer (`z.int32()` accepts the same, with more of zod to bundle):
 * `value | 0` is the number as an int32, the same number only when it is one.
 */
export function isInt32(value: unknown): value is number {
  return typeof value === 'number' && value === (value | 0);
}

/**
 * The Error shape built with `zod` (zod/mini or full zod): a catalog code (a 32-bit integer)
 * and a message. The document states `type: integer, format: int32` (openapi/classic.ts).
 */
export function errorBody(zod: Pick<ZodFunctions, 'object' | 'custom' | 'string'>) {
  return zod.object({ error: zod.custom<number>(isInt32), message: zod.string() });
}

/** The body of every error response: a catalog code and a human-readable message. */
export const ErrorBody = errorBody({ object: z.object, custom: z.custom, string: z.string });
export type ErrorBody = z.output<typeof ErrorBody>;
