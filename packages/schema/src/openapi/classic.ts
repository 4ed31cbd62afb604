import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import { ErrorBody, errorBody } from '../error-body.ts';
import { INT64_MAX, INT64_MIN } from '../int64.ts';
import { OPERATION_SCHEMAS, operationSchemas } from '../operations/service.ts';
import { NewPlant, Plant, plantSchemas } from '../plant.ts';
import { NAME_MAX_LENGTH, NO_CONTROL_CHARACTERS_PATTERN, TAG_MAX_LENGTH } from '../text.ts';
import type { ZodFunctions } from '../zod-functions.ts';
import { BODY_PROSE, FIELD_PROSE, SCHEMA_PROSE } from './prose.ts';

// The contract's schemas are zod/mini (so the client's browser bundle stays small), and each is
// written once as a function of the zod functions both flavours share. Here the same functions
// build full ("classic") zod twins, the schemas zod-to-openapi reads, and the documentation is
// attached to the twins only, through zod's and zod-to-openapi's public APIs: `.openapi(name)`
// names a component, zod's global registry holds a field's description.
extendZodWithOpenApi(z);
/** Full zod offers every function the contract's schemas are written with (`ZodFunctions`). */
const classic = z as unknown as ZodFunctions;
type Schema = z.ZodType;
type ObjectSchema = z.ZodObject<Record<string, Schema>>;

function describe<T extends Schema>(schema: T, meta: z.core.GlobalMeta): T {
  z.globalRegistry.add(schema, meta);
  return schema;
}

function field(object: ObjectSchema, key: string): Schema {
  const schema = object.shape[key];
  if (!schema) throw new Error(`the OpenAPI builder documents a field ${key} that has no schema`);
  return schema instanceof z.ZodOptional ? (schema.unwrap() as Schema) : schema;
}

/**
 * The documented full-zod twin of each contract schema a route or the document names, keyed by
 * the contract's (zod/mini) schema.
 *
 * @example
 * documentedTwins().get(contract.createPlant.body); // the NewPlant component
 */
export function documentedTwins(): ReadonlyMap<unknown, Schema> {
  const plants = plantSchemas(classic) as unknown as {
    Plant: ObjectSchema;
    NewPlant: ObjectSchema;
  };
  const error = errorBody(classic) as unknown as ObjectSchema;
  const operations = operationSchemas(classic) as unknown as Record<
    keyof typeof OPERATION_SCHEMAS,
    Schema
  >;
  const text = { pattern: NO_CONTROL_CHARACTERS_PATTERN };
  describe(field(plants.NewPlant, 'id'), {
    type: 'integer',
    format: 'int64',
    // Exact bigints: the document is written with a lossless JSON serializer (serialize.ts),
    // so the file holds -9223372036854775808 and 9223372036854775807 digit for digit.
    minimum: INT64_MIN as unknown as number,
    maximum: INT64_MAX as unknown as number,
    description: FIELD_PROSE.id,
  });
  // The length bounds are one function check (text.ts `textRules`), which zod-to-openapi cannot
  // read: stated here, as the pattern is.
  describe(field(plants.Plant, 'name'), {
    description: FIELD_PROSE.name,
    minLength: 1,
    maxLength: NAME_MAX_LENGTH,
    ...text,
  });
  describe(field(plants.Plant, 'tag'), {
    description: FIELD_PROSE.tag,
    minLength: 1,
    maxLength: TAG_MAX_LENGTH,
    ...text,
  });
  describe(field(error, 'error'), {
    type: 'integer',
    format: 'int32',
    description: FIELD_PROSE.error,
  });
  describe(field(error, 'message'), { description: FIELD_PROSE.message });
  const named = (schema: Schema, id: keyof typeof SCHEMA_PROSE) =>
    schema.openapi(id, { ...SCHEMA_PROSE[id] } as never);
  return new Map<unknown, Schema>([
    [ErrorBody, named(error, 'Error')],
    [Plant, named(plants.Plant, 'Plant')],
    [NewPlant, named(plants.NewPlant, 'NewPlant')],
    [OPERATION_SCHEMAS.Health, named(operations.Health, 'Health')],
    [OPERATION_SCHEMAS.ApiIndex, named(operations.ApiIndex, 'ApiIndex')],
    ...(Object.keys(BODY_PROSE) as (keyof typeof BODY_PROSE)[]).map(
      (key) =>
        [
          OPERATION_SCHEMAS[key],
          describe(operations[key], { description: BODY_PROSE[key] }),
        ] as const,
    ),
  ]);
}
