import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { type Contract, contract, RESPONSE_MEDIA_TYPES, type Route } from './contract.ts';
import { ErrorBody } from './error-body.ts';
import { ERROR_ENTRIES, ERROR_STATUSES, type ErrorName } from './error-catalog.ts';
import { INT64_MAX } from './int64.ts';
import { NAME_MAX_LENGTH, TAG_MAX_LENGTH } from './text.ts';

/** The version of the published contract (`info.version`). */
export const API_VERSION = '1.0.0';
const BEARER = 'bearerAuth';

/** Per error status: the response component's name, description and headers. */
type HeaderDoc = Record<string, { description: string; schema: { type: 'string' | 'integer' } }>;
const STATUS_RESPONSES: Record<number, { name: string; summary: string; headers?: HeaderDoc }> = {
  400: { name: 'BadRequest', summary: 'The request body is missing, malformed or invalid.' },
  401: {
    name: 'Unauthorized',
    summary: 'The bearer credential is missing or not valid.',
    headers: {
      'WWW-Authenticate': {
        description:
          'RFC 6750 challenge: `Bearer realm="plant-store"`, plus `error="invalid_token"` when a token was sent but refused.',
        schema: { type: 'string' },
      },
    },
  },
  404: { name: 'NotFound', summary: 'No operation exists at this path (any unknown path).' },
  405: {
    name: 'MethodNotAllowed',
    summary: 'The path exists, but not with this method (any known path).',
    headers: {
      Allow: { description: 'The methods the path supports.', schema: { type: 'string' } },
    },
  },
  409: { name: 'Conflict', summary: 'The id is taken by a plant with another name or tag.' },
  413: { name: 'PayloadTooLarge', summary: 'The request body is over the size limit.' },
  415: { name: 'UnsupportedMediaType', summary: 'The request body is not application/json.' },
  429: {
    name: 'TooManyRequests',
    summary: 'Over a rate limit (per credential, or per client address for refused credentials).',
    headers: {
      'Retry-After': {
        description: 'Seconds to wait before the limit allows another request.',
        schema: { type: 'integer' },
      },
    },
  },
  500: { name: 'InternalError', summary: 'An unexpected server failure.' },
  503: {
    name: 'ServiceUnavailable',
    summary: 'The store is unreachable; retry later.',
    headers: {
      'Retry-After': {
        description: 'Seconds to wait before retrying.',
        schema: { type: 'integer' },
      },
    },
  },
};

const EXAMPLE_MESSAGES: Record<ErrorName, string> = {
  validationFailed:
    'name: Invalid input: expected string, received undefined; colour: unknown property',
  malformedJson: 'Request body is not valid JSON (at character 17)',
  jsonTooDeep: 'Request body nests arrays and objects deeper than 64 levels (at character 64)',
  missingBody: 'Request body is required: send a NewPlant as application/json',
  malformedRequest: 'Malformed HTTP request',
  unauthorized: 'A valid bearer credential is required',
  notFound: 'No operation at GET /plant',
  methodNotAllowed: 'GET is not allowed on /plants; allowed: POST',
  conflict: 'A plant with id 10 already exists with a different name or tag',
  payloadTooLarge: 'Request body is larger than 65536 bytes',
  unsupportedMediaType: 'Request body must be application/json, not text/plain',
  rateLimited: 'Too many requests for this credential; retry after 12 seconds',
  internal: 'Internal server error',
  storeUnavailable: 'The store is unavailable; retry later',
};

/** A named example of a request or response body, as OpenAPI's Example Object. */
interface Example {
  readonly summary: string;
  readonly description?: string;
  readonly value: unknown;
}

/**
 * Named examples of each operation's request body and success body, shown by the reference
 * page next to the schema. The tests check every one against the route's zod schema.
 */
const OPERATION_EXAMPLES: Partial<
  Record<keyof Contract, { request?: Record<string, Example>; response?: Record<string, Example> }>
> = {
  createPlant: {
    request: {
      withTag: {
        summary: 'A plant with a tag',
        value: { id: 10, name: 'Monstera', tag: 'indoor' },
      },
      withoutTag: {
        summary: 'A plant without a tag (tag is optional)',
        value: { id: 11, name: 'Fern' },
      },
    },
    response: {
      withTag: {
        summary: 'Created, or an identical replay: the plant without its id',
        description:
          'Sending `{"id": 10, "name": "Monstera", "tag": "indoor"}` again answers the same 200.',
        value: { name: 'Monstera', tag: 'indoor' },
      },
      withoutTag: {
        summary: 'A plant created without a tag has no tag property',
        value: { name: 'Fern' },
      },
    },
  },
  getHealth: { response: { ok: { summary: 'The process is alive', value: { status: 'ok' } } } },
  getReadiness: { response: { ok: { summary: 'The store answers', value: { status: 'ok' } } } },
};

const RATE_LIMIT = ERROR_ENTRIES.find((entry) => (entry.status as number) === 429);

const DESCRIPTION = `Creates plants. Every request carries a bearer credential (\`Authorization: Bearer <token>\`).
This document is served by the API itself at \`/openapi.json\`, and rendered as an interactive
reference at \`/docs\`.

**Getting a token.** Tokens are opaque strings issued by the operator of the server you call;
the API has no sign-up operation. An operator either lists the accepted tokens in the server's
\`PLANT_STORE_TOKENS\` setting (comma-separated, each at least 16 characters) or issues one with
the \`plant-store tokens create\` command on the server, which prints the new token once. Ask the
operator for a token, keep it secret, and send it on every request to \`/plants\`. A missing,
unknown, expired or revoked token answers 401 (\`error\` 40101) with a
\`WWW-Authenticate: Bearer\` challenge.

**ids are exact 64-bit integers.** The full range -9223372036854775808 … ${INT64_MAX} is accepted
and stored without rounding. JavaScript consumers must not round-trip ids through
\`JSON.parse\`/\`JSON.stringify\` (they round above 2^53); use a \`bigint\`-aware serializer.

**Creates are idempotent per id.** Sending the same id with the same name and tag again answers
200 with the same plant, so a client may safely retry. The same id with a different name or tag
answers 409.

**Bodies are strict.** Unknown properties, \`null\` for \`tag\`, a \`name\` or \`tag\` that is empty,
longer than ${NAME_MAX_LENGTH} / ${TAG_MAX_LENGTH} characters, not well-formed Unicode or holding
control characters are rejected with 400. A JSON object that repeats a key with different values
is malformed JSON (400).

**Limits.**

- Request body: at most 64 KiB (65536 bytes) by default; the operator may change it with the
  server's \`BODY_LIMIT\` setting. A larger body answers 413 (\`error\` 41301).
- \`name\`: 1 to ${NAME_MAX_LENGTH} characters; \`tag\`: 1 to ${TAG_MAX_LENGTH} characters (Unicode code points,
  as JSON Schema counts them).
- Request line and headers: at most 16 KiB (\`error\` 40004, and the connection is closed).
${
  RATE_LIMIT
    ? `- Rate limits: requests over the operator's rate limits answer 429 (\`error\` ${RATE_LIMIT.code})
  with a \`Retry-After\` header; wait that many seconds before the next request.`
    : '- Rate limits: none in this version. A later version may answer 429 with a `Retry-After` header.'
}

**Errors** always have the Error shape. The \`error\` codes:

| error | HTTP status | meaning |
|---|---|---|
${ERROR_ENTRIES.map((e) => `| ${e.code} | ${e.status} | ${e.meaning} |`).join('\n')}

Any unknown path answers 404 (\`NotFound\` response) and any other method on a known path
answers 405 (\`MethodNotAllowed\` response, with an \`Allow\` header).`;

function errorResponse(status: number) {
  const meta = STATUS_RESPONSES[status];
  if (!meta) throw new Error(`no response description for status ${status}`);
  const entries = ERROR_ENTRIES.filter((entry) => entry.status === status);
  return {
    name: meta.name,
    component: {
      description: meta.summary,
      ...(meta.headers ? { headers: meta.headers } : {}),
      content: {
        'application/json': {
          schema: { $ref: '#/components/schemas/Error' },
          examples: Object.fromEntries(
            entries.map((entry) => [
              entry.name,
              {
                summary: `${entry.code}: ${entry.meaning}`,
                value: { error: entry.code, message: EXAMPLE_MESSAGES[entry.name] },
              },
            ]),
          ),
        },
      },
    },
  };
}

function statusesOf(route: Route): number[] {
  const statuses = new Set<number>();
  for (const entry of ERROR_ENTRIES) {
    if (route.errors.includes(entry.name)) statuses.add(entry.status);
  }
  return [...statuses].sort((a, b) => a - b);
}

function registerRoute(
  registry: OpenAPIRegistry,
  route: Route,
  examples: { request?: Record<string, Example>; response?: Record<string, Example> } = {},
): void {
  const mediaType = RESPONSE_MEDIA_TYPES[route.responseType ?? 'json'].split(';')[0] ?? '';
  registry.registerPath({
    operationId: route.operationId,
    method: route.method,
    path: route.path,
    summary: route.summary,
    description: route.description,
    tags: [route.tag],
    security: route.auth === 'bearer' ? [{ [BEARER]: [] }] : [],
    ...(route.body
      ? {
          request: {
            body: {
              required: true,
              description: 'Required.',
              content: {
                'application/json': {
                  schema: route.body,
                  ...(examples.request ? { examples: examples.request } : {}),
                },
              },
            },
          },
        }
      : {}),
    responses: {
      [route.response.status]: {
        description: route.response.description,
        content: {
          [mediaType]: {
            schema: route.response.schema,
            ...(examples.response ? { examples: examples.response } : {}),
          },
        },
      },
      ...Object.fromEntries(
        statusesOf(route).map((status) => [
          status,
          { $ref: `#/components/responses/${STATUS_RESPONSES[status]?.name}` },
        ]),
      ),
    },
  });
}

/**
 * Builds the OpenAPI 3.1 document from the route contract: the one place the published
 * document comes from.
 *
 * @example
 * const doc = buildOpenApiDocument();
 * doc.paths?.['/plants']?.post?.operationId; // 'createPlant'
 */
export function buildOpenApiDocument(routes: Contract = contract) {
  const registry = new OpenAPIRegistry();
  registry.register('Error', ErrorBody);
  registry.registerComponent('securitySchemes', BEARER, {
    type: 'http',
    scheme: 'bearer',
    description:
      'An opaque access token issued by the operator of the server (see "Getting a token" above): `Authorization: Bearer <token>`.',
  });
  for (const status of ERROR_STATUSES) {
    const { name, component } = errorResponse(status);
    registry.registerComponent('responses', name, component);
  }
  for (const [key, route] of Object.entries(routes) as [keyof Contract, Route][]) {
    registerRoute(registry, route, OPERATION_EXAMPLES[key]);
  }

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Plant Store',
      version: API_VERSION,
      description: DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'The server this document is served from' }],
    security: [{ [BEARER]: [] }],
    tags: [
      { name: 'plants', description: 'Create plants.' },
      { name: 'operations', description: 'Probes and this document, for operators.' },
    ],
  });
}
