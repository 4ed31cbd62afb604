import * as z from 'zod/mini';
import { INT64_MAX, INT64_MIN } from './int64.ts';

/**
 * A path or query parameter read from its text by `read`: the handler receives what `read`
 * returns, and `undefined` refuses the text with `problem` (a 400 naming the parameter). The
 * refinement aborts on a refusal, so the conversion after it never sees text it refused (zod
 * otherwise runs every check, even after one failed). The document states it as `type: string`
 * (its rule is in `problem`, which a 400 says). A browser bundle needs no `z.string`, `z.pipe`,
 * `z.transform` or zod metadata for it: every client method bundles its call's parameters
 * (packages/client/test/e2e/consumer.test.ts weighs the bundle).
 *
 * @example
 * const slug = textParam(
 *   (text) => (/^[a-z-]{1,40}$/.test(text) ? text : undefined),
 *   'must be 1 to 40 lowercase letters or hyphens',
 * );
 */
export function textParam<T>(
  read: (text: string) => T | undefined,
  problem: string,
): z.ZodMiniType<T, string> {
  const readable = (value: unknown) => typeof value === 'string' && read(value) !== undefined;
  const schema = z.unknown().check(
    z.refine(readable, { error: problem, abort: true }),
    z.overwrite((value) => read(value as string)),
  );
  // `z.overwrite` keeps the declared type: the output is what `read` returns.
  return schema as z.ZodMiniType<T, string>;
}

const INT64_TEXT = /^-?[0-9]{1,19}$/;

/**
 * A signed 64-bit integer written in decimal (an id in a path), received as a `bigint`.
 *
 * @example
 * int64Param.safeParse('-42'); // { success: true, data: -42n }
 * int64Param.safeParse('9223372036854775808'); // refused: over 2^63 - 1
 */
export const int64Param = /* @__PURE__ */ (() =>
  textParam((text) => {
    if (!INT64_TEXT.test(text)) return undefined;
    const value = BigInt(text);
    return value >= INT64_MIN && value <= INT64_MAX ? value : undefined;
  }, `must be a whole number from ${INT64_MIN} to ${INT64_MAX}`))();
