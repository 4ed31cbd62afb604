import type { ErrorName } from '../error-catalog.ts';
import { INT64_MAX, INT64_MIN } from '../int64.ts';
import { FIELD_LIST, fieldNames } from '../plant-fields.ts';
import { RATE_LIMIT_HEADERS } from '../rate-limit-headers.ts';

// What the OpenAPI document says in prose, one short string each: schemas and fields, tags,
// response headers and error statuses (an operation's own prose is in its entry, operations/).
// Edit it here, then run `pnpm openapi` (a unit test fails while the committed openapi.json differs). The long
// description (info.description) is description.md beside this file. None of it is on the
// browser's path (`@plant-store/schema/shapes`); document.ts only assembles the document.

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

/** The descriptions of the fields that are not Plant's (those are in plant-fields.ts). */
export const FIELD_PROSE = {
  id: `A signed 64-bit integer, ${INT64_MIN} to ${INT64_MAX}, accepted exactly.`,
  error: 'Code from the error catalog.',
  message: 'What went wrong, for a person to read.',
} as const;

const code = (name: string) => `\`${name}\``;
const joined = (items: readonly string[], conjunction: string) =>
  items.length < 2
    ? items.join('')
    : `${items.slice(0, -1).join(', ')} ${conjunction} ${items.at(-1)}`;
const strings = FIELD_LIST.filter((field) => field.type === 'string');

/** What a field's value may be, as the long description lists it. */
function limitOf(field: (typeof FIELD_LIST)[number]): string {
  switch (field.type) {
    case 'string':
      return `1 to ${field.maxLength} characters`;
    case 'integer':
      return `an integer from ${field.minimum} to ${field.maximum}`;
    case 'boolean':
      return '`true` or `false`';
  }
}

/**
 * The `{{name}}`s of description.md that name Plant's fields, built from the field list
 * (plant-fields.ts), so the long description names every field and no other.
 */
export const FIELD_PLACEHOLDERS: Record<string, string> = {
  'fields:and': fieldNames('and'),
  'fields:or': fieldNames('or'),
  OPTIONAL_FIELDS: joined(
    FIELD_LIST.filter((field) => !field.required).map((field) => code(field.name)),
    'or',
  ),
  STRING_FIELDS: joined(
    strings.map((field) => code(field.name)),
    'or',
  ),
  STRING_MAX_LENGTHS: strings.map((field) => field.maxLength).join(' / '),
  STRING_LIMITS: strings.map((field) => `${code(field.name)}: ${limitOf(field)}`).join('; '),
  OTHER_LIMITS: FIELD_LIST.filter((field) => field.type !== 'string')
    .map((field) => `; ${code(field.name)}: ${limitOf(field)}`)
    .join(''),
};

/** The unnamed response bodies. */
export const BODY_PROSE = {
  OpenApiDocument: 'An OpenAPI 3.1 document.',
} as const;

export const TAG_PROSE = {
  plants: 'Create plants.',
  operations:
    'Probes and this document, for operators and tools. No credential needed. A deployment may serve them only on its internal address.',
} as const;

export const BEARER_PROSE =
  'An opaque access token issued by the operator of the server (see "Getting a token" above): `Authorization: Bearer <token>`.';

/** A response header the document declares. */
export interface ResponseHeader {
  /** The error statuses that carry it. */
  readonly statuses: readonly number[];
  /** Also on the success response of every operation that requires a credential. */
  readonly onAuthenticatedSuccess?: boolean;
  /** Always sent with those statuses (default); false when only some answers carry it. */
  readonly required?: boolean;
  readonly description: string;
  readonly schema: { type: 'string' | 'integer'; minimum?: number };
}

/** The statuses an authenticated request can be answered with after its credential check. */
export const AFTER_CREDENTIAL_CHECK = [400, 409, 413, 415, 429, 503] as const;
const RATE_LIMIT_NOTE =
  'Sent with every answer to a request whose credential was accepted, while the server limits requests per credential (see "Limits").';

/**
 * The response headers the document declares, each with the statuses that carry it. The
 * server sets them where the error is raised (`ApiError` headers) or, for the rate-limit
 * headers, after the credential check; declaring another header is one entry here.
 */
export const RESPONSE_HEADERS: Record<string, ResponseHeader> = {
  'WWW-Authenticate': {
    statuses: [401],
    description:
      'RFC 6750 challenge: `Bearer realm="plant-store"`, plus `error="invalid_token"` when a token was sent but refused.',
    schema: { type: 'string' },
  },
  Allow: {
    statuses: [405],
    description: 'The methods the path supports, comma-separated (e.g. `POST`).',
    schema: { type: 'string' },
  },
  'Retry-After': {
    statuses: [429, 503],
    description:
      'Seconds to wait before retrying: until the rate limit allows another request (429; usually 1), or until the store is expected back (503).',
    schema: { type: 'integer' },
  },
  [RATE_LIMIT_HEADERS.limit]: {
    statuses: AFTER_CREDENTIAL_CHECK,
    onAuthenticatedSuccess: true,
    required: false,
    description: `Requests per second this credential may sustain. ${RATE_LIMIT_NOTE}`,
    schema: { type: 'integer', minimum: 1 },
  },
  [RATE_LIMIT_HEADERS.remaining]: {
    statuses: AFTER_CREDENTIAL_CHECK,
    onAuthenticatedSuccess: true,
    required: false,
    description: `Requests this credential may send right now without waiting (at most the burst the server allows); 0 means: pace at \`${RATE_LIMIT_HEADERS.limit}\` per second. ${RATE_LIMIT_NOTE}`,
    schema: { type: 'integer', minimum: 0 },
  },
  [RATE_LIMIT_HEADERS.reset]: {
    statuses: AFTER_CREDENTIAL_CHECK,
    onAuthenticatedSuccess: true,
    required: false,
    description: `Seconds (rounded up) until the allowance grows again: while \`${RATE_LIMIT_HEADERS.remaining}\` is above 0, until the burst allowance is whole again (at most 60); at 0, until the next request fits. ${RATE_LIMIT_NOTE}`,
    schema: { type: 'integer', minimum: 0 },
  },
};

/**
 * Per error status: the response component's name, and a `shared` sentence where one covers
 * every code of the status: `errors` names the codes it was written for (a unit test compares
 * them with the catalog's), and a response listing exactly those is described by it. Any other
 * response is described by its codes' `summary` in error-catalog.ts.
 */
export const STATUS_RESPONSES: Record<
  number,
  { name: string; shared?: { summary: string; errors: readonly ErrorName[] } }
> = {
  400: {
    name: 'BadRequest',
    shared: {
      summary: 'The request is malformed, or its body is missing, malformed or invalid.',
      errors: [
        'validationFailed',
        'malformedJson',
        'missingBody',
        'malformedRequest',
        'jsonTooDeep',
      ],
    },
  },
  401: { name: 'Unauthorized' },
  404: { name: 'NotFound' },
  405: { name: 'MethodNotAllowed' },
  408: { name: 'RequestTimeout' },
  409: { name: 'Conflict' },
  413: { name: 'PayloadTooLarge' },
  415: { name: 'UnsupportedMediaType' },
  417: { name: 'ExpectationFailed' },
  429: { name: 'TooManyRequests' },
  500: { name: 'InternalError' },
  503: { name: 'ServiceUnavailable' },
};
