import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod';
import { ErrorBody, errorBody } from '../error-body.ts';
import type { Field } from '../field-kinds.ts';
import { INT64_MAX, INT64_MIN } from '../int64.ts';
import { OPERATION_SCHEMAS, operationSchemas } from '../operations/service.ts';
import { NewPlant, Plant, plantSchemas } from '../plant.ts';
import { FIELD_DESCRIPTIONS, FIELD_LIST } from '../plant-fields.ts';
import { NO_CONTROL_CHARACTERS_PATTERN } from '../text.ts';
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
 * What the document states of a field (plant-fields.ts): its description, type and bounds. Its
 * checks are function checks (field-kinds.ts, text.ts), which zod-to-openapi cannot read.
 */
function fieldMeta(field: Field & { name: keyof typeof FIELD_DESCRIPTIONS }): z.core.GlobalMeta {
  const description = FIELD_DESCRIPTIONS[field.name];
  switch (field.type) {
    case 'string':
      return {
        description,
        minLength: 1,
        maxLength: field.maxLength,
        pattern: NO_CONTROL_CHARACTERS_PATTERN,
      };
    case 'integer':
      return { type: 'integer', minimum: field.minimum, maximum: field.maximum, description };
    case 'boolean':
      return { type: 'boolean', description };
    default:
      throw new Error(
        `openapi/classic.ts states no bounds for a field of type ${field satisfies never}`,
      );
  }
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
  describe(field(plants.NewPlant, 'id'), {
    type: 'integer',
    format: 'int64',
    // Exact bigints: the document is written with a lossless JSON serializer (serialize.ts),
    // so the file holds -9223372036854775808 and 9223372036854775807 digit for digit.
    minimum: INT64_MIN,
    maximum: INT64_MAX,
    description: FIELD_PROSE.id,
  });
  for (const plantField of FIELD_LIST) {
    describe(field(plants.Plant, plantField.name), fieldMeta(plantField));
  }
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
