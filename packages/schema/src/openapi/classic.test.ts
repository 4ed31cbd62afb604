import { OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { describe, expect, it } from 'vitest';
import { ErrorBody } from '../error-body.ts';
import { INT64_MAX, INT64_MIN } from '../int64.ts';
import { OPERATION_SCHEMAS } from '../operations/service.ts';
import { NewPlant, Plant } from '../plant.ts';
import { NO_CONTROL_CHARACTERS_PATTERN as NO_CONTROLS } from '../text.ts';
import { documentedTwins } from './classic.ts';

const twins = documentedTwins();
const { components } = new OpenApiGeneratorV31(
  [...twins.values()].map((schema) => ({ type: 'schema' as const, schema })),
).generateComponents();

describe('documentedTwins', () => {
  it('has a twin for each contract schema the document names', () => {
    const { Health, ApiIndex, OpenApiDocument } = OPERATION_SCHEMAS;
    expect([...twins.keys()]).toEqual([
      ErrorBody,
      Plant,
      NewPlant,
      Health,
      ApiIndex,
      OpenApiDocument,
    ]);
    expect(Object.keys(components?.schemas ?? {})).toEqual([
      'Error',
      'Plant',
      'NewPlant',
      'Health',
      'ApiIndex',
    ]);
  });

  it('accepts what the contract schema accepts', () => {
    const bodies = [
      { id: 1, name: 'Fern' },
      { id: INT64_MIN, name: 'x', tag: 't' },
      { id: INT64_MAX + 1n, name: 'x' },
      { id: 1, name: '' },
      { id: 1, name: 'a\u0007' },
      { id: 1, name: 'x', wheels: 4 },
      { name: 'x'.repeat(201) },
      { error: 40001, message: 'm' },
      { error: 2 ** 31, message: 'm' },
      { status: 'ok' },
    ];
    for (const [schema, twin] of twins) {
      for (const body of bodies) {
        const label = `${twin.meta()?.id ?? 'a body'} ${String(Object.values(body))}`;
        const expected = (schema as typeof Plant).safeParse(body).success;
        expect(twin.safeParse(body).success, label).toBe(expected);
      }
    }
  });

  it('states the id as an exact int64 and each field with its bounds', () => {
    const schemas = components?.schemas ?? {};
    expect(schemas.NewPlant).toMatchObject({
      required: ['id', 'name'],
      properties: {
        id: { type: 'integer', format: 'int64', minimum: INT64_MIN, maximum: INT64_MAX },
        name: { type: 'string', minLength: 1, maxLength: 200, pattern: NO_CONTROLS },
        tag: { type: 'string', minLength: 1, maxLength: 100, pattern: NO_CONTROLS },
      },
    });
    expect(schemas.Plant).toMatchObject({ properties: { name: { maxLength: 200 } } });
    expect(schemas.Error).toMatchObject({ properties: { error: { format: 'int32' } } });
  });
});
