import type { Contract } from '../contract.ts';
import { INT64_MAX, INT64_MIN } from '../int64.ts';

// What the OpenAPI document says in prose about each operation and schema, one short string
// each: edit it here, run `pnpm openapi`. The long description (info.description) is
// description.md beside this file. None of it is on the browser's path (`/shapes`).

/** Per operation: its summary, description, and the description of its success response. */
export const OPERATION_PROSE: Record<
  keyof Contract,
  { summary: string; description: string; response: string }
> = {
  createPlant: {
    summary: 'Create a plant',
    description: 'Creates a new plant in the store and returns it (without its id).',
    response: 'Plant response',
  },
  getHealth: {
    summary: 'Liveness probe',
    description: 'Answers 200 while the process is alive. No credential needed.',
    response: 'The process is alive.',
  },
  getReadiness: {
    summary: 'Readiness probe',
    description:
      'Answers 200 when the store can commit (its last commit and a tiny write probe every few seconds succeeded), 503 when it cannot (disk full, read-only or deleted database file, database unreachable). No credential needed.',
    response: 'The store can commit.',
  },
  getOpenApiDocument: {
    summary: 'This OpenAPI document',
    description: 'The OpenAPI 3.1 document of this API, as JSON. No credential needed.',
    response: 'The OpenAPI document.',
  },
  getIndex: {
    summary: 'Where the docs are',
    description:
      'Points to the API reference page (`/docs`) and this document (`/openapi.json`). No credential needed.',
    response: 'The paths of the docs.',
  },
  getDocs: {
    summary: 'API reference page',
    description:
      'This document rendered as an interactive HTML reference. The page and its script are served by this server: it loads nothing from any other host. No credential needed.',
    response: 'The API reference page.',
  },
  getDocsScript: {
    summary: 'API reference page script',
    description: 'The script that renders the API reference page. No credential needed.',
    response: 'The renderer script of the API reference page.',
  },
};

/** The named schemas (components): description and example. */
export const SCHEMA_PROSE = {
  Error: {
    description:
      'An error response. `error` is a stable code from the catalog; `message` explains.',
    example: { error: 40001, message: 'name: must not be empty' },
  },
  Plant: {
    description: 'A plant in the store, as returned by the API (it has no `id`).',
    example: { name: 'Monstera', tag: 'indoor' },
  },
  NewPlant: {
    description:
      'A plant to create: all fields of Plant plus the required `id`. Unknown properties are rejected.',
    example: { id: 10, name: 'Monstera', tag: 'indoor' },
  },
  Health: { description: 'The probe answered.', example: { status: 'ok' } },
  ApiIndex: {
    description: 'Where this API describes itself: its reference page and this document.',
    example: { docs: '/docs', openapi: '/openapi.json' },
  },
} as const;

/** The fields' descriptions, by schema and field. */
export const FIELD_PROSE = {
  id: `A signed 64-bit integer, ${INT64_MIN} to ${INT64_MAX}, accepted exactly.`,
  name: 'The name of the plant',
  tag: 'Tag that specifies the type of the plant',
  error: 'Code from the error catalog.',
  message: 'What went wrong, for a person to read.',
} as const;

/** The unnamed response bodies. */
export const BODY_PROSE = {
  OpenApiDocument: 'An OpenAPI 3.1 document.',
  HtmlPage: 'An HTML page.',
  Script: 'A JavaScript program.',
} as const;

export const TAG_PROSE = {
  plants: 'Create plants.',
  operations:
    'Probes and this document, for operators and tools. No credential needed. A deployment may serve them only on its internal address.',
} as const;

export const BEARER_PROSE =
  'An opaque access token issued by the operator of the server (see "Getting a token" above): `Authorization: Bearer <token>`.';
