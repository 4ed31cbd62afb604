import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { type Contract, contract } from '../contract.ts';
import { ErrorBody } from '../error-body.ts';
import { ERROR_ENTRIES } from '../error-catalog.ts';
import { buildOpenApiDocument } from './document.ts';
import { serializeOpenApiDocument, serializeOpenApiYaml } from './serialize.ts';

const COMMITTED = new URL('../../openapi.json', import.meta.url);
const COMMITTED_YAML = new URL('../../openapi.yaml', import.meta.url);
const generated = buildOpenApiDocument();

describe('the committed openapi.json', () => {
  it('is exactly what the code generates (run `pnpm openapi` after changing the schema)', () => {
    expect(readFileSync(COMMITTED, 'utf8')).toBe(serializeOpenApiDocument(generated));
  });

  it('has an openapi.yaml twin that is exactly what the code generates, with the same content', () => {
    const text = readFileSync(COMMITTED_YAML, 'utf8');
    expect(text).toBe(serializeOpenApiYaml(generated));
    expect(parseYaml(text)).toEqual(JSON.parse(serializeOpenApiDocument(generated)));
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

describe('the document is complete for outside consumers', () => {
  type Examples = Record<string, { value: unknown }>;
  type Operation = {
    operationId: string;
    summary?: string;
    description?: string;
    requestBody?: { content: Record<string, { examples?: Examples }> };
    responses: Record<string, { content?: Record<string, { examples?: Examples }> }>;
  };
  const operations = Object.values(generated.paths ?? {}).flatMap(
    (item) => Object.values(item as Record<string, Operation>) as Operation[],
  );
  const routeOf = (operation: Operation) =>
    contract[operation.operationId as keyof Contract] as Contract[keyof Contract];

  it('gives every operation an operationId of the contract, a summary and a description', () => {
    expect(operations.map((operation) => operation.operationId).sort()).toEqual(
      Object.keys(contract).sort(),
    );
    for (const operation of operations) {
      expect(operation.summary, operation.operationId).toMatch(/\S/);
      expect(operation.description, operation.operationId).toMatch(/\S/);
    }
  });

  it('has createPlant request and 200 examples that the contract schemas accept', () => {
    const post = operations.find((operation) => operation.operationId === 'createPlant');
    const requestExamples = Object.values(
      post?.requestBody?.content['application/json']?.examples ?? {},
    );
    const responseExamples = Object.values(
      post?.responses['200']?.content?.['application/json']?.examples ?? {},
    );
    expect(requestExamples.length).toBeGreaterThanOrEqual(2);
    expect(responseExamples.length).toBeGreaterThanOrEqual(2);
  });

  it('has only examples that the route schemas (and the Error schema) accept', () => {
    let checked = 0;
    for (const operation of operations) {
      const route = routeOf(operation);
      for (const example of Object.values(
        operation.requestBody?.content['application/json']?.examples ?? {},
      )) {
        expect(
          route.body?.safeParse(example.value).success,
          `${operation.operationId} request`,
        ).toBe(true);
        checked++;
      }
      for (const example of Object.values(
        operation.responses['200']?.content?.['application/json']?.examples ?? {},
      )) {
        expect(
          route.response.schema.safeParse(example.value).success,
          `${operation.operationId} 200`,
        ).toBe(true);
        checked++;
      }
    }
    for (const response of Object.values(generated.components?.responses ?? {}) as unknown as {
      content: { 'application/json': { examples: Examples } };
    }[]) {
      for (const example of Object.values(response.content['application/json'].examples)) {
        expect(ErrorBody.safeParse(example.value).success).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(ERROR_ENTRIES.length);
  });

  it('explains tokens, int64 ids, safe replays, limits and the error table in info.description', () => {
    const description = generated.info.description ?? '';
    expect(description).toContain('PLANT_STORE_TOKENS');
    expect(description).toContain('plant-store tokens create');
    expect(description).toContain('9223372036854775807');
    expect(description).toContain('JSON.parse');
    expect(description).toMatch(/same name and tag again answers\s+200/);
    expect(description).toContain('64 KiB');
    expect(description).toMatch(/`name`: 1 to 200 characters; `tag`: 1 to 100 characters/);
    expect(description).toMatch(/Rate limits:/);
    for (const entry of ERROR_ENTRIES) {
      expect(description).toContain(`| ${entry.code} | ${entry.status} | ${entry.meaning} |`);
    }
  });

  it('documents /docs as an HTML page and its script as JavaScript, without a credential', () => {
    const docs = generated.paths?.['/docs']?.get;
    expect(Object.keys(docs?.responses?.['200']?.content ?? {})).toEqual(['text/html']);
    expect(docs?.security).toEqual([]);
    const script = generated.paths?.['/docs/assets/api-reference.js']?.get;
    expect(Object.keys(script?.responses?.['200']?.content ?? {})).toEqual(['text/javascript']);
    expect(script?.security).toEqual([]);
  });
});
