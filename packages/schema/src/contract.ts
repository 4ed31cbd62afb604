import * as z from 'zod/mini';
import { documented } from './documented.ts';
import type { ErrorName } from './error-catalog.ts';
import { NewPlant, Plant } from './plant.ts';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** How a route's success body is sent: JSON (the default), an HTML page, or a script. */
export type ResponseType = 'json' | 'html' | 'javascript';
/** The `Content-Type` of each response type. */
export const RESPONSE_MEDIA_TYPES: Readonly<Record<ResponseType, string>> = {
  json: 'application/json',
  html: 'text/html; charset=utf-8',
  javascript: 'text/javascript; charset=utf-8',
};

/**
 * One operation of the API, declared once. The server's routing and validation, the client's
 * call and the OpenAPI document are all derived from these fields.
 */
export interface Route<
  TBody extends z.ZodMiniType | undefined = z.ZodMiniType | undefined,
  TResponse extends z.ZodMiniType = z.ZodMiniType,
> {
  readonly operationId: string;
  readonly method: HttpMethod;
  /** OpenAPI path template, e.g. `/plants` or `/plants/{id}`. */
  readonly path: string;
  readonly summary: string;
  readonly description: string;
  readonly tag: 'plants' | 'operations';
  /** `bearer`: the request must carry `Authorization: Bearer <token>`. */
  readonly auth: 'bearer' | 'none';
  /** The required JSON request body, or `undefined` for an operation without one. */
  readonly body: TBody;
  /** The success body's media type; `json` when absent. `html`/`javascript` bodies are strings. */
  readonly responseType?: ResponseType;
  readonly response: {
    readonly status: 200;
    readonly schema: TResponse;
    readonly description: string;
  };
  /** The catalog errors this operation can answer with (the router's own: {@link ROUTING_ERRORS}). */
  readonly errors: readonly ErrorName[];
  /**
   * `false`: served, but not an operation of the OpenAPI document. The reference page and its
   * script are HTML and JavaScript for a browser, not calls an API consumer makes.
   */
  readonly documented?: false;
}

/**
 * What the router answers on every path of the contract, whatever the operation: 404 for a
 * path no route has (a wrong server URL or path prefix) and 405, with `Allow`, for a method the
 * path does not support. The document lists both on every operation.
 */
export const ROUTING_ERRORS = [
  'notFound',
  'methodNotAllowed',
] as const satisfies readonly ErrorName[];

/** Declares a route with its exact types kept (helper for inference only). */
export function defineRoute<
  TBody extends z.ZodMiniType | undefined,
  TResponse extends z.ZodMiniType,
>(route: Route<TBody, TResponse>): Route<TBody, TResponse> {
  return route;
}

/** The body a route's handler receives, after validation. */
export type RouteBody<R extends Route> = R['body'] extends z.ZodMiniType
  ? z.output<R['body']>
  : undefined;
/** The body a caller passes for a route, before validation. */
export type RouteInput<R extends Route> = R['body'] extends z.ZodMiniType
  ? z.input<R['body']>
  : undefined;
/** The success body of a route. */
export type RouteResult<R extends Route> = z.output<R['response']['schema']>;

const Health = documented(z.object({ status: z.literal('ok') }), {
  id: 'Health',
  description: 'The probe answered.',
  example: { status: 'ok' },
});

const ApiIndex = documented(
  z.object({ docs: z.literal('/docs'), openapi: z.literal('/openapi.json') }),
  {
    id: 'ApiIndex',
    description: 'Where this API describes itself: its reference page and this document.',
    example: { docs: '/docs', openapi: '/openapi.json' },
  },
);

export const createPlant = defineRoute({
  operationId: 'createPlant',
  method: 'post',
  path: '/plants',
  summary: 'Create a plant',
  description: 'Creates a new plant in the store and returns it (without its id).',
  tag: 'plants',
  auth: 'bearer',
  body: NewPlant,
  response: { status: 200, schema: Plant, description: 'Plant response' },
  errors: [
    'validationFailed',
    'malformedJson',
    'jsonTooDeep',
    'missingBody',
    'malformedRequest',
    'unauthorized',
    'requestTimeout',
    'conflict',
    'payloadTooLarge',
    'unsupportedMediaType',
    'expectationFailed',
    'rateLimited',
    'internal',
    'storeUnavailable',
  ],
});

export const getHealth = defineRoute({
  operationId: 'getHealth',
  method: 'get',
  path: '/healthz',
  summary: 'Liveness probe',
  description: 'Answers 200 while the process is alive. No credential needed.',
  tag: 'operations',
  auth: 'none',
  body: undefined,
  response: { status: 200, schema: Health, description: 'The process is alive.' },
  errors: ['internal'],
});

export const getReadiness = defineRoute({
  operationId: 'getReadiness',
  method: 'get',
  path: '/readyz',
  summary: 'Readiness probe',
  description:
    'Answers 200 when the store can commit (its last commit and a tiny write probe every few seconds succeeded), 503 when it cannot (disk full, read-only or deleted database file, database unreachable). No credential needed.',
  tag: 'operations',
  auth: 'none',
  body: undefined,
  response: { status: 200, schema: Health, description: 'The store can commit.' },
  errors: ['storeUnavailable', 'internal'],
});

export const getOpenApiDocument = defineRoute({
  operationId: 'getOpenApiDocument',
  method: 'get',
  path: '/openapi.json',
  summary: 'This OpenAPI document',
  description: 'The OpenAPI 3.1 document of this API, as JSON. No credential needed.',
  tag: 'operations',
  auth: 'none',
  body: undefined,
  response: {
    status: 200,
    schema: documented(z.record(z.string(), z.unknown()), {
      description: 'An OpenAPI 3.1 document.',
    }),
    description: 'The OpenAPI document.',
  },
  errors: ['internal'],
});

export const getIndex = defineRoute({
  operationId: 'getIndex',
  method: 'get',
  path: '/',
  summary: 'Where the docs are',
  description:
    'Points to the API reference page (`/docs`) and this document (`/openapi.json`). No credential needed.',
  tag: 'operations',
  auth: 'none',
  body: undefined,
  response: { status: 200, schema: ApiIndex, description: 'The paths of the docs.' },
  errors: ['internal'],
});

export const getDocs = defineRoute({
  operationId: 'getDocs',
  method: 'get',
  path: '/docs',
  summary: 'API reference page',
  description:
    'This document rendered as an interactive HTML reference. The page and its script are served by this server: it loads nothing from any other host. No credential needed.',
  tag: 'operations',
  auth: 'none',
  body: undefined,
  responseType: 'html',
  response: {
    status: 200,
    schema: documented(z.string(), { description: 'An HTML page.' }),
    description: 'The API reference page.',
  },
  errors: ['internal'],
  documented: false,
});

export const getDocsScript = defineRoute({
  operationId: 'getDocsScript',
  method: 'get',
  path: '/docs/assets/api-reference.js',
  summary: 'API reference page script',
  description: 'The script that renders the API reference page. No credential needed.',
  tag: 'operations',
  auth: 'none',
  body: undefined,
  responseType: 'javascript',
  response: {
    status: 200,
    schema: documented(z.string(), { description: 'A JavaScript program.' }),
    description: 'The renderer script of the API reference page.',
  },
  errors: ['internal'],
  documented: false,
});

/** Every operation of the API, by operationId. Adding a route = one entry here + one handler. */
export const contract = {
  createPlant,
  getHealth,
  getReadiness,
  getOpenApiDocument,
  getIndex,
  getDocs,
  getDocsScript,
} as const;
export type Contract = typeof contract;
