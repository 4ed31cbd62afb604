import { zodToOpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';

// The contract's schemas are zod/mini (so the client's browser bundle stays small); the
// generator walks full ("classic") zod schemas and reads their metadata. Both are the same
// zod core underneath: a classic schema built from a mini schema's definition validates the
// same way, and the documentation attached with `documented()` is handed to the generator's
// registry (its `id` as the component name).

type Definition = z.core.$ZodTypeDef & Record<string, unknown>;
// biome-ignore lint/suspicious/noExplicitAny: each classic class takes its own definition type
type ClassicClass = new (definition: any) => z.ZodType;

const CLASSIC: Readonly<Record<string, ClassicClass>> = {
  custom: z.ZodCustom,
  literal: z.ZodLiteral,
  number: z.ZodNumber,
  object: z.ZodObject,
  optional: z.ZodOptional,
  pipe: z.ZodPipe,
  record: z.ZodRecord,
  string: z.ZodString,
  transform: z.ZodTransform,
  unknown: z.ZodUnknown,
};
const NESTED = ['innerType', 'in', 'out', 'keyType', 'valueType'] as const;
const converted = new WeakMap<z.core.$ZodType, z.ZodType>();

/**
 * The full-zod twin of a contract schema (the same one every time), with its documentation
 * registered for zod-to-openapi.
 *
 * @example
 * registry.registerPath({ …, responses: { 200: { content: { 'application/json': { schema: toClassic(Plant) } } } } });
 */
export function toClassic(schema: z.core.$ZodType): z.ZodType {
  const known = converted.get(schema);
  if (known) return known;
  const definition = schema._zod.def as Definition;
  const Classic =
    definition.type === 'number' && 'format' in definition
      ? (z.ZodNumberFormat as ClassicClass)
      : CLASSIC[definition.type];
  if (!Classic) throw new Error(`the OpenAPI builder has no mapping for ${definition.type}`);
  const copy: Definition = { ...definition };
  for (const key of NESTED) {
    const inner = definition[key];
    if (inner instanceof z.core.$ZodType) copy[key] = toClassic(inner);
  }
  if (definition.type === 'object') {
    const shape = definition.shape as Record<string, z.core.$ZodType>;
    copy.shape = Object.fromEntries(
      Object.entries(shape).map(([key, value]) => [key, toClassic(value)]),
    );
  }
  const classic = new Classic(copy);
  const meta = z.globalRegistry.get(schema);
  if (meta) {
    const { id, ...documentation } = meta;
    zodToOpenAPIRegistry.add(classic, {
      ...documentation,
      ...(typeof id === 'string' ? { _internal: { refId: id } } : {}),
    } as never);
  }
  converted.set(schema, classic);
  return classic;
}
