import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import {
  type Contract,
  contract,
  RESPONSE_MEDIA_TYPES,
  ROUTING_ERRORS,
  type Route,
} from '../contract.ts';
import { ErrorBody } from '../error-body.ts';
import { ERROR_ENTRIES, ERROR_STATUSES, type ErrorName } from '../error-catalog.ts';
import { ERROR_MESSAGES } from '../error-messages.ts';
import { formatIssues } from '../format-issues.ts';
import { INT64_MAX } from '../int64.ts';
import { JsonTooDeepError, MAX_JSON_DEPTH, MalformedJsonError, parseJson } from '../json.ts';
import { NewPlant } from '../plant.ts';
import { RATE_LIMIT_HEADERS } from '../rate-limit-headers.ts';
import { NAME_MAX_LENGTH, TAG_MAX_LENGTH } from '../text.ts';
import { toClassic } from './to-classic.ts';

/** An OpenAPI 3.1 document, as zod-to-openapi generates it. */
export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

/** The version of the published contract (`info.version`). */
export const API_VERSION = '1.0.0';
const BEARER = 'bearerAuth';

/** A response header the document declares. */
interface ResponseHeader {
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
const AFTER_CREDENTIAL_CHECK = [400, 409, 413, 415, 429, 503] as const;
const RATE_LIMIT_NOTE =
  'Sent with every answer to a request whose credential was accepted, while the server limits requests per credential (see "Limits").';

/**
 * The response headers the document declares, each with the statuses that carry it. The
 * server sets them where the error is raised (`ApiError` headers) or, for the rate-limit
 * headers, after the credential check; declaring another header is one entry here.
 */
const RESPONSE_HEADERS: Record<string, ResponseHeader> = {
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
    description: `Seconds (rounded up) until the allowance grows again: while \`${RATE_LIMIT_HEADERS.remaining}\` is above 0, until the burst allowance is whole again (at most 60); at 0, until the next request fits (at most 1 at the default settings). ${RATE_LIMIT_NOTE}`,
    schema: { type: 'integer', minimum: 0 },
  },
};

/** Per error status: the response component's name and description. */
const STATUS_RESPONSES: Record<number, { name: string; summary: string }> = {
  400: { name: 'BadRequest', summary: 'The request body is missing, malformed or invalid.' },
  401: { name: 'Unauthorized', summary: 'The bearer credential is missing or not valid.' },
  404: {
    name: 'NotFound',
    summary:
      'No operation exists at the requested path: any unknown path answers this (for example a server URL without its path prefix).',
  },
  405: {
    name: 'MethodNotAllowed',
    summary:
      'The path exists, but not with the method sent (e.g. `GET /plants`); `Allow` lists the methods it supports.',
  },
  408: {
    name: 'RequestTimeout',
    summary: 'The request body did not arrive within the request timeout.',
  },
  409: { name: 'Conflict', summary: 'The id is taken by a plant with another name or tag.' },
  413: { name: 'PayloadTooLarge', summary: 'The request body is over the size limit.' },
  415: { name: 'UnsupportedMediaType', summary: 'The request body is not application/json.' },
  417: {
    name: 'ExpectationFailed',
    summary: 'The request expects something other than `100-continue`.',
  },
  429: {
    name: 'TooManyRequests',
    summary: 'Over a rate limit (per credential, or per client address for refused credentials).',
  },
  500: { name: 'InternalError', summary: 'An unexpected server failure.' },
  503: { name: 'ServiceUnavailable', summary: 'The store is unreachable; retry later.' },
};

/**
 * The headers an error status carries (`status`), or the success response of an operation
 * that requires a credential (`'authenticated success'`), as OpenAPI Header Objects.
 */
function headersOf(status: number | 'authenticated success') {
  const headers = Object.entries(RESPONSE_HEADERS)
    .filter(([, header]) =>
      status === 'authenticated success'
        ? header.onAuthenticatedSuccess === true
        : header.statuses.includes(status),
    )
    // `required` (the server always sets it with the status) lets a generated client rely on it.
    .map(
      ([name, { description, schema, required = true }]) =>
        [name, { description, required, schema }] as const,
    );
  return headers.length === 0 ? undefined : Object.fromEntries(headers);
}

/** What `attempt` throws (it must throw): the examples take their text from the real failure. */
function thrownBy(attempt: () => unknown): unknown {
  try {
    attempt();
  } catch (error) {
    return error;
  }
  throw new Error('the example was expected to fail');
}

const notJson = thrownBy(() => parseJson('{"id": 10, "name": }'));
const tooDeep = thrownBy(() =>
  parseJson(`${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`),
);
const invalid = NewPlant.safeParse({ id: 10, wheels: 4 });
if (
  !(notJson instanceof MalformedJsonError && tooDeep instanceof JsonTooDeepError) ||
  invalid.success
) {
  throw new Error('the error examples no longer fail as they should');
}

/**
 * One example message per catalog code, each built by the function the server answers with
 * (the validation and JSON examples by running the real schema and parser on a bad body).
 */
const EXAMPLE_MESSAGES: Record<ErrorName, string> = {
  validationFailed: formatIssues(invalid.error.issues),
  malformedJson: ERROR_MESSAGES.malformedJson.notJson(notJson),
  jsonTooDeep: ERROR_MESSAGES.jsonTooDeep(tooDeep),
  missingBody: ERROR_MESSAGES.missingBody,
  malformedRequest: ERROR_MESSAGES.malformedRequest.unparsable,
  unauthorized: ERROR_MESSAGES.unauthorized.missing,
  notFound: ERROR_MESSAGES.notFound('GET', '/plant'),
  methodNotAllowed: ERROR_MESSAGES.methodNotAllowed('GET', '/plants', ['POST']),
  requestTimeout: ERROR_MESSAGES.requestTimeout(30),
  conflict: ERROR_MESSAGES.conflict(10n),
  payloadTooLarge: ERROR_MESSAGES.payloadTooLarge(65536),
  unsupportedMediaType: ERROR_MESSAGES.unsupportedMediaType.notJson('text/plain'),
  expectationFailed: ERROR_MESSAGES.expectationFailed,
  rateLimited: ERROR_MESSAGES.rateLimited('credential', 1),
  internal: ERROR_MESSAGES.internal,
  storeUnavailable: ERROR_MESSAGES.storeUnavailable.unreachable,
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
  getIndex: {
    response: {
      paths: { summary: 'The docs', value: { docs: '/docs', openapi: '/openapi.json' } },
    },
  },
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
    ? `- Rate limits: each credential may send a burst of requests at once, then a steady number per
  second (the operator's settings). Every answer to a request whose credential was accepted
  says where it stands: \`${RATE_LIMIT_HEADERS.limit}\` (requests per second),
  \`${RATE_LIMIT_HEADERS.remaining}\` (requests that may be sent now) and
  \`${RATE_LIMIT_HEADERS.reset}\` (seconds until the allowance grows again). A client that keeps
  \`${RATE_LIMIT_HEADERS.remaining}\` above 0, or else sends at most
  \`${RATE_LIMIT_HEADERS.limit}\` per second, is never refused. A request over the limit
  answers 429 (\`error\` ${RATE_LIMIT.code}) with a \`Retry-After\` header: the real wait
  until the next request fits, in whole seconds (usually 1).`
    : '- Rate limits: none in this version. A later version may answer 429 with a `Retry-After` header.'
}

**Errors** always have the Error shape. The \`error\` codes:

| error | HTTP status | meaning |
|---|---|---|
${ERROR_ENTRIES.map((e) => `| ${e.code} | ${e.status} | ${e.meaning} |`).join('\n')}

Every operation lists 404 (\`NotFound\`: any unknown path, e.g. a server URL missing its path
prefix) and 405 (\`MethodNotAllowed\`: another method on a known path, with an \`Allow\`
header), because the router answers them for any request.

**How strictly requests are read.** Paths are exact and case-sensitive: \`/plants/\` and
\`/PLANTS\` answer 404. A request line in absolute form (\`POST http://host/plants\`) is served
like \`/plants\` (RFC 9112 §3.2.2). Only HTTP/1.1 and HTTP/1.0 are spoken: an \`HTTP/2.0\`
request line answers 400 (\`error\` 40004). A JSON body must be UTF-8: a \`charset\` other
than \`utf-8\` answers 415 (\`error\` 41501). \`Expect: 100-continue\` is answered with
\`100 Continue\` only once the credential, the content type and the declared size have passed.

**What this document cannot express.** JSON Schema has no keyword for well-formed Unicode: a
\`name\` or \`tag\` holding a lone surrogate (written in JSON as an unpaired \`\\ud800\`…\`\\udfff\`
escape) matches the schema but is rejected with 400 (\`error\` 40001). Every other rule the
server applies to a NewPlant is in its schema: the \`id\` range (\`minimum\`/\`maximum\`, exact
64-bit integers), the lengths and the \`pattern\` that excludes control characters (U+0000–U+001F,
U+007F–U+009F).

**Operations.** The probes (\`/healthz\`, \`/readyz\`), this document (\`/openapi.json\`) and
\`/\` (which points to this document and the reference page) are listed under their own
*Operations* tag: they are machine-readable JSON endpoints that load balancers and tools call,
so they stay in the contract; a deployment may keep them off its public address. The HTML
reference page (\`/docs\`) and its script are for browsers, not API operations, and are not listed.`;

const OPERATIONS_TAG_DESCRIPTION =
  'Probes and this document, for operators and tools. No credential needed. A deployment may serve them only on its internal address.';

function errorResponse(status: number) {
  const meta = STATUS_RESPONSES[status];
  if (!meta) throw new Error(`no response description for status ${status}`);
  const headers = headersOf(status);
  const entries = ERROR_ENTRIES.filter((entry) => entry.status === status);
  return {
    name: meta.name,
    component: {
      description: meta.summary,
      ...(headers ? { headers } : {}),
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

/** The error statuses an operation can answer: its own errors and the router's. */
function statusesOf(route: Route): number[] {
  const errors: readonly ErrorName[] = [...route.errors, ...ROUTING_ERRORS];
  const statuses = new Set<number>();
  for (const entry of ERROR_ENTRIES) {
    if (errors.includes(entry.name)) statuses.add(entry.status);
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
                  schema: toClassic(route.body),
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
        ...(route.auth === 'bearer' ? { headers: headersOf('authenticated success') ?? {} } : {}),
        content: {
          [mediaType]: {
            schema: toClassic(route.response.schema),
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
export function buildOpenApiDocument(routes: Contract = contract): OpenApiDocument {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', BEARER, {
    type: 'http',
    scheme: 'bearer',
    description:
      'An opaque access token issued by the operator of the server (see "Getting a token" above): `Authorization: Bearer <token>`.',
  });
  const documented = (Object.entries(routes) as [keyof Contract, Route][]).filter(
    ([, route]) => route.documented !== false,
  );
  // Only the error responses some operation refers to: no unused component.
  const used = new Set(documented.flatMap(([, route]) => statusesOf(route)));
  for (const status of ERROR_STATUSES.filter((status) => used.has(status))) {
    const { name, component } = errorResponse(status);
    registry.registerComponent('responses', name, component);
  }
  for (const [key, route] of documented) {
    registerRoute(registry, route, OPERATION_EXAMPLES[key]);
  }

  // Error is named by its documented `id`; it is listed here because the operations reach it
  // only through the `$ref`s of the error responses (`registry.register` would need zod
  // extended with `.openapi()`).
  const definitions = [
    { type: 'schema' as const, schema: toClassic(ErrorBody) },
    ...registry.definitions,
  ];
  return new OpenApiGeneratorV31(definitions).generateDocument({
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
      { name: 'plants', 'x-displayName': 'Plants', description: 'Create plants.' },
      {
        name: 'operations',
        'x-displayName': 'Operations',
        description: OPERATIONS_TAG_DESCRIPTION,
      },
    ],
  });
}
