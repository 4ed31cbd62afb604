import * as z from 'zod/mini';
import { miniString } from './mini-string.ts';
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
 * and a message. The document states `type: integer, format: int32` (openapi/classic.ts). The
 * code is a function check on `z.unknown()` adding the issue `z.custom(isInt32)` would (less of
 * zod in a browser bundle; see `int64`).
 */
export function errorBody(zod: Pick<ZodFunctions, 'object' | 'unknown' | 'string'>) {
  const code = zod.unknown().check((payload) => {
    const input = payload.value;
    if (!isInt32(input)) payload.issues.push({ code: 'custom', input });
  }) as unknown as z.ZodMiniType<number, number>;
  return zod.object({ error: code, message: zod.string() });
}

/** The body of every error response: a catalog code and a human-readable message. */
export const ErrorBody = errorBody({ object: z.object, unknown: z.unknown, string: miniString });
export type ErrorBody = z.output<typeof ErrorBody>;
