import * as z from 'zod/mini';

/**
 * `z.string(params)` of zod/mini as one function check on `z.unknown()`: a value that is not a
 * string gets the issue zod's own string parser adds (`invalid_type`, `expected: 'string'`, the
 * message of `params.error`), and later checks are skipped, as with `z.string()`. The contract's
 * schemas use it in place of `z.string`, so a browser bundle carries no string schema of zod;
 * the OpenAPI builder still builds its twins with full zod's `z.string` (openapi/classic.ts).
 *
 * @example
 * miniString({ error: () => 'must be a string' }).check(textRules(200));
 */
export const miniString = ((params?: { error?: (issue: z.core.$ZodRawIssue) => string }) =>
  z.unknown().check((payload) => {
    const input = payload.value;
    if (typeof input === 'string') return;
    const issue = { code: 'invalid_type', expected: 'string', input } as const;
    // No `error`: the message is left to zod, as z.string() leaves it.
    payload.issues.push({ ...issue, message: params?.error?.(issue) });
  })) as unknown as typeof z.string;
