import type { z } from 'zod';
import { Env, type NumberRange } from '../../src/config.ts';

/** Every variable the server reads (config.ts's Env), for the tests that keep docs in step. */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(Env.shape);

/** Each numeric variable's range, as its schema in config.ts carries it. */
export function numericRanges(): Record<string, NumberRange> {
  const ranges: Record<string, NumberRange> = {};
  for (const [name, schema] of Object.entries(Env.shape)) {
    const inner = 'unwrap' in schema ? (schema.unwrap() as z.ZodType) : schema;
    const range = inner.meta()?.range as NumberRange | undefined;
    if (range) ranges[name] = range;
  }
  return ranges;
}

/** One variable read as the server reads it (`undefined`: unset, so its default if it has one). */
export function readVariable(name: string, value: string | undefined): unknown {
  const schema = (Env.shape as Record<string, z.ZodType>)[name];
  if (schema === undefined) throw new Error(`${name} is not a configuration variable`);
  return schema.parse(value);
}
