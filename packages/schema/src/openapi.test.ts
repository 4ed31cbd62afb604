import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { ERROR_ENTRIES } from './error-catalog.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { serializeOpenApiDocument } from './openapi-file.ts';

const COMMITTED = new URL('../openapi.json', import.meta.url);
const generated = buildOpenApiDocument();

describe('the committed openapi.json', () => {
  it('is exactly what the code generates (run `pnpm openapi` after changing the schema)', () => {
    expect(readFileSync(COMMITTED, 'utf8')).toBe(serializeOpenApiDocument(generated));
  });

  it('is a valid OpenAPI 3.1 document for swagger-parser', async () => {
    const api = await SwaggerParser.validate(structuredClone(generated) as never);
    expect(api.info.version).toBe('1.0.0');
  });
});

describe('the generated document follows the specification', () => {
  const doc = generated;
  const schemas = doc.components?.schemas ?? {};

  it('is OpenAPI 3.1 with info.version 1.0.0', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
  });

  it('declares NewPlant = Plant fields + required int64 id, strict', () => {
    expect(schemas.NewPlant).toMatchObject({
      type: 'object',
      required: ['id', 'name'],
      additionalProperties: false,
      properties: {
        id: { type: 'integer', format: 'int64' },
        name: { type: 'string' },
        tag: { type: 'string' },
      },
    });
  });

  it('declares Plant {name required, tag optional} with no id', () => {
    expect(schemas.Plant).toMatchObject({
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string' }, tag: { type: 'string' } },
    });
    expect(Object.keys((schemas.Plant as { properties: object }).properties)).toEqual([
      'name',
      'tag',
    ]);
  });

  it('declares Error {error int32, message string}, both required', () => {
    expect(schemas.Error).toMatchObject({
      type: 'object',
      required: ['error', 'message'],
      properties: { error: { type: 'integer', format: 'int32' }, message: { type: 'string' } },
    });
  });

  it('applies one HTTP bearer scheme to all operations, the probes opting out', () => {
    expect(doc.components?.securitySchemes).toEqual({
      bearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths?.['/plants']?.post?.security).toEqual([{ bearerAuth: [] }]);
    for (const path of ['/healthz', '/readyz', '/openapi.json']) {
      expect(doc.paths?.[path]?.get?.security).toEqual([]);
    }
  });

  it('gives POST /plants a required NewPlant body, 200 Plant and every error status it sends', () => {
    const post = doc.paths?.['/plants']?.post;
    expect(post?.operationId).toBe('createPlant');
    expect(post?.requestBody).toMatchObject({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPlant' } } },
    });
    expect(post?.responses?.['200']).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Plant' } } },
    });
    expect(Object.keys(post?.responses ?? {})).toEqual([
      '200',
      '400',
      '401',
      '409',
      '413',
      '415',
      '429',
      '500',
      '503',
    ]);
  });

  it('describes every error status with the Error schema and an example per catalog code', () => {
    type ErrorResponse = {
      content: { 'application/json': { examples: Record<string, { value: { error: number } }> } };
    };
    const responses = Object.values(doc.components?.responses ?? {}) as unknown as ErrorResponse[];
    for (const entry of ERROR_ENTRIES) {
      const found = responses.find((response) =>
        Object.values(response.content['application/json'].examples).some(
          (example) => example.value.error === entry.code,
        ),
      );
      expect(found, `code ${entry.code}`).toMatchObject({
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      });
    }
  });
});
