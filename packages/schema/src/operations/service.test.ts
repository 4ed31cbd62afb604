import { expect, it } from 'vitest';
import * as classic from 'zod';
import {
  getHealth,
  getIndex,
  getOpenApiDocument,
  getReadiness,
  OPERATION_SCHEMAS,
  operationSchemas,
} from './service.ts';

const SAMPLES: Record<keyof typeof OPERATION_SCHEMAS, [value: unknown, accepted: boolean][]> = {
  Health: [
    [{ status: 'ok' }, true],
    [{ status: 'down' }, false],
    [{}, false],
    ['ok', false],
  ],
  ApiIndex: [
    [{ docs: '/docs', openapi: '/openapi.json' }, true],
    [{ docs: '/docs', openapi: '/openapi.yaml' }, false],
    [{ docs: '/docs' }, false],
  ],
  OpenApiDocument: [
    [{ openapi: '3.1.0', paths: {} }, true],
    [{}, true],
    [[], false],
    [null, false],
  ],
};

it('builds bodies that accept only what each operation answers, in zod/mini and full zod', () => {
  const twins = operationSchemas(classic);
  for (const [name, samples] of Object.entries(SAMPLES)) {
    const key = name as keyof typeof SAMPLES;
    for (const [value, accepted] of samples) {
      const label = `${name} ${JSON.stringify(value)}`;
      expect(OPERATION_SCHEMAS[key].safeParse(value).success, label).toBe(accepted);
      expect(twins[key].safeParse(value).success, label).toBe(accepted);
    }
  }
});

it('answers each operation with one of those bodies, the instance the document names', () => {
  const { Health, ApiIndex, OpenApiDocument } = OPERATION_SCHEMAS;
  expect(getHealth.response.schema).toBe(Health);
  expect(getReadiness.response.schema).toBe(Health);
  expect(getIndex.response.schema).toBe(ApiIndex);
  expect(getOpenApiDocument.response.schema).toBe(OpenApiDocument);
});
