import * as z from 'zod/mini';
import { defineCall, defineOperation } from '../operation.ts';
import type { ZodFunctions } from '../zod-functions.ts';

// The operations for operators and tools: the probes, the OpenAPI document and the index. No
// credential; no browser bundles them: each is built in a `/* @__PURE__ */` function, so a
// bundler that reaches this module through `@plant-store/schema/shapes` drops what it does not
// use (it cannot tell on its own that reading OPERATION_SCHEMAS has no side effects).

/** The success bodies of these operations, built with `zod` (zod/mini or full zod). */
export function operationSchemas(
  zod: Pick<ZodFunctions, 'object' | 'literal' | 'record' | 'string' | 'unknown'>,
) {
  return {
    Health: zod.object({ status: zod.literal('ok') }),
    ApiIndex: zod.object({ docs: zod.literal('/docs'), openapi: zod.literal('/openapi.json') }),
    OpenApiDocument: zod.record(zod.string(), zod.unknown()),
  };
}

/** The mini instances these operations answer with (the OpenAPI builder maps them to its own). */
export const OPERATION_SCHEMAS = /* @__PURE__ */ (() =>
  operationSchemas({
    object: z.object,
    literal: z.literal,
    record: z.record,
    string: z.string,
    unknown: z.unknown,
  }))();

export const getHealth = /* @__PURE__ */ (() =>
  defineOperation(
    defineCall({
      operationId: 'getHealth',
      method: 'get',
      path: '/healthz',
      auth: 'none',
      response: { status: 200, schema: OPERATION_SCHEMAS.Health },
    }),
    {
      tag: 'operations',
      errors: ['internal'],
      summary: 'Liveness probe',
      description: 'Answers 200 while the process is alive. No credential needed.',
      success: 'The process is alive.',
      examples: { response: { ok: { summary: 'The process is alive', value: { status: 'ok' } } } },
    },
  ))();

export const getReadiness = /* @__PURE__ */ (() =>
  defineOperation(
    defineCall({
      operationId: 'getReadiness',
      method: 'get',
      path: '/readyz',
      auth: 'none',
      response: { status: 200, schema: OPERATION_SCHEMAS.Health },
    }),
    {
      tag: 'operations',
      errors: ['storeUnavailable', 'internal'],
      summary: 'Readiness probe',
      description:
        'Answers 200 when the store can commit (its last commit and a tiny write probe every few seconds succeeded), 503 when it cannot (disk full, read-only or deleted database file, database unreachable). No credential needed.',
      success: 'The store can commit.',
      examples: { response: { ok: { summary: 'The store answers', value: { status: 'ok' } } } },
    },
  ))();

export const getOpenApiDocument = /* @__PURE__ */ (() =>
  defineOperation(
    defineCall({
      operationId: 'getOpenApiDocument',
      method: 'get',
      path: '/openapi.json',
      auth: 'none',
      response: { status: 200, schema: OPERATION_SCHEMAS.OpenApiDocument },
    }),
    {
      tag: 'operations',
      errors: ['internal'],
      summary: 'This OpenAPI document',
      description: 'The OpenAPI 3.1 document of this API, as JSON. No credential needed.',
      success: 'The OpenAPI document.',
    },
  ))();

export const getIndex = /* @__PURE__ */ (() =>
  defineOperation(
    defineCall({
      operationId: 'getIndex',
      method: 'get',
      path: '/',
      auth: 'none',
      response: { status: 200, schema: OPERATION_SCHEMAS.ApiIndex },
    }),
    {
      tag: 'operations',
      errors: ['internal'],
      summary: 'Where the docs are',
      description:
        'Points to the API reference page (`/docs`) and this document (`/openapi.json`). No credential needed.',
      success: 'The paths of the docs.',
      examples: {
        response: {
          paths: { summary: 'The docs', value: { docs: '/docs', openapi: '/openapi.json' } },
        },
      },
    },
  ))();
