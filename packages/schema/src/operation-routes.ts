import * as z from 'zod/mini';
import { defineRoute } from './route.ts';
import type { ZodFunctions } from './zod-functions.ts';

/** The success bodies of the operations routes, built with `zod` (zod/mini or full zod). */
export function operationSchemas(
  zod: Pick<ZodFunctions, 'object' | 'literal' | 'record' | 'string' | 'unknown'>,
) {
  return {
    Health: zod.object({ status: zod.literal('ok') }),
    ApiIndex: zod.object({ docs: zod.literal('/docs'), openapi: zod.literal('/openapi.json') }),
    OpenApiDocument: zod.record(zod.string(), zod.unknown()),
    HtmlPage: zod.string(),
    Script: zod.string(),
  };
}

/** The mini instances the routes below answer with (the OpenAPI builder maps them to its own). */
export const OPERATION_SCHEMAS = operationSchemas({
  object: z.object,
  literal: z.literal,
  record: z.record,
  string: z.string,
  unknown: z.unknown,
});

export const getHealth = defineRoute({
  operationId: 'getHealth',
  method: 'get',
  path: '/healthz',
  tag: 'operations',
  auth: 'none',
  body: undefined,
  response: { status: 200, schema: OPERATION_SCHEMAS.Health },
  errors: ['internal'],
});

export const getReadiness = defineRoute({
  operationId: 'getReadiness',
  method: 'get',
  path: '/readyz',
  tag: 'operations',
  auth: 'none',
  body: undefined,
  response: { status: 200, schema: OPERATION_SCHEMAS.Health },
  errors: ['storeUnavailable', 'internal'],
});

export const getOpenApiDocument = defineRoute({
  operationId: 'getOpenApiDocument',
  method: 'get',
  path: '/openapi.json',
  tag: 'operations',
  auth: 'none',
  body: undefined,
  response: { status: 200, schema: OPERATION_SCHEMAS.OpenApiDocument },
  errors: ['internal'],
});

export const getIndex = defineRoute({
  operationId: 'getIndex',
  method: 'get',
  path: '/',
  tag: 'operations',
  auth: 'none',
  body: undefined,
  response: { status: 200, schema: OPERATION_SCHEMAS.ApiIndex },
  errors: ['internal'],
});

export const getDocs = defineRoute({
  operationId: 'getDocs',
  method: 'get',
  path: '/docs',
  tag: 'operations',
  auth: 'none',
  body: undefined,
  responseType: 'html',
  response: { status: 200, schema: OPERATION_SCHEMAS.HtmlPage },
  errors: ['internal'],
  documented: false,
});

export const getDocsScript = defineRoute({
  operationId: 'getDocsScript',
  method: 'get',
  path: '/docs/assets/api-reference.js',
  tag: 'operations',
  auth: 'none',
  body: undefined,
  responseType: 'javascript',
  response: { status: 200, schema: OPERATION_SCHEMAS.Script },
  errors: ['internal'],
  documented: false,
});
