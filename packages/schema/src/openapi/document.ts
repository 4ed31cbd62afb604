import { readFileSync } from 'node:fs';
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod/mini';
import { contract, type Operation, ROUTING_ERRORS } from '../contract.ts';
import { ErrorBody } from '../error-body.ts';
import { ERROR_CATALOG, ERROR_ENTRIES, ERROR_STATUSES, type ErrorName } from '../error-catalog.ts';
import { ERROR_MESSAGES } from '../error-messages.ts';
import { formatIssues } from '../format-issues.ts';
import { INT64_MAX, INT64_MIN } from '../int64.ts';
import { JsonTooDeepError, MAX_JSON_DEPTH, MalformedJsonError, parseJson } from '../json.ts';
import { NewPlant } from '../plant.ts';
import { NAME_MAX_LENGTH, TAG_MAX_LENGTH } from '../plant-fields.ts';
import { RATE_LIMIT_HEADERS } from '../rate-limit-headers.ts';
import { documentedTwins } from './classic.ts';
import {
  BEARER_PROSE,
  FIELD_PLACEHOLDERS,
  RESPONSE_HEADERS,
  STATUS_RESPONSES,
  TAG_PROSE,
} from './prose.ts';

/** An OpenAPI 3.1 document, as zod-to-openapi generates it. */
export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

/** The version of the published contract (`info.version`). */
export const API_VERSION = '1.0.0';
const BEARER = 'bearerAuth';

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
 * The `BODY_LIMIT` the 413 example was answered with: a value chosen for the example (its
 * description names it), so the document carries no server default.
 */
export const EXAMPLE_BODY_LIMIT_BYTES = 1000;
/** The request timeout of the 408 example, likewise an example value (not the server's). */
export const EXAMPLE_REQUEST_TIMEOUT_SECONDS = 10;

/** What the document says of an example beyond its summary, by catalog name. */
const EXAMPLE_DESCRIPTIONS: Partial<Record<ErrorName, string>> = {
  payloadTooLarge: `As a server started with \`BODY_LIMIT=${EXAMPLE_BODY_LIMIT_BYTES}\` answers: the number in the message is the server's configured body limit.`,
  requestTimeout: `As a server with a ${EXAMPLE_REQUEST_TIMEOUT_SECONDS}-s request timeout answers: the number in the message is the server's request timeout.`,
};

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
  requestTimeout: ERROR_MESSAGES.requestTimeout(EXAMPLE_REQUEST_TIMEOUT_SECONDS),
  conflict: ERROR_MESSAGES.conflict(10n),
  // What a server started with the example's BODY_LIMIT sends (apps/server/test/error-examples.test.ts
  // starts one and compares): an example value, not the server's default.
  payloadTooLarge: ERROR_MESSAGES.payloadTooLarge(EXAMPLE_BODY_LIMIT_BYTES),
  unsupportedMediaType: ERROR_MESSAGES.unsupportedMediaType.notJson('text/plain'),
  expectationFailed: ERROR_MESSAGES.expectationFailed,
  rateLimited: ERROR_MESSAGES.rateLimited('credential', 1),
  internal: ERROR_MESSAGES.internal,
  storeUnavailable: ERROR_MESSAGES.storeUnavailable.unreachable,
};

/**
 * `info.description`: description.md beside this module (Markdown, edited as such), with each
 * `{{name}}` replaced by the contract's value: `{{code:<catalog name>}}` an error code,
 * `{{header:<name>}}` a rate-limit header, `{{ERROR_TABLE}}` the catalog's rows. An unknown
 * name is an error, so the text cannot name a value the contract does not have.
 */
export function describeApi(markdown: string): string {
  const values: Record<string, string> = {
    INT64_MIN: String(INT64_MIN),
    INT64_MAX: String(INT64_MAX),
    NAME_MAX_LENGTH: String(NAME_MAX_LENGTH),
    TAG_MAX_LENGTH: String(TAG_MAX_LENGTH),
    ...FIELD_PLACEHOLDERS,
    ERROR_TABLE: ERROR_ENTRIES.map((e) => `| ${e.code} | ${e.status} | ${e.meaning} |`).join('\n'),
    ...Object.fromEntries(
      Object.entries(ERROR_CATALOG).map(([name, entry]) => [`code:${name}`, String(entry.code)]),
    ),
    ...Object.fromEntries(
      Object.entries(RATE_LIMIT_HEADERS).map(([name, header]) => [`header:${name}`, header]),
    ),
  };
  return markdown.trimEnd().replace(/\{\{([^}]*)\}\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`description.md: {{${name}}} names no value`);
    return value;
  });
}

const DESCRIPTION_FILE = new URL('./description.md', import.meta.url);

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
                ...(EXAMPLE_DESCRIPTIONS[entry.name]
                  ? { description: EXAMPLE_DESCRIPTIONS[entry.name] }
                  : {}),
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
function statusesOf(operation: Operation): number[] {
  const errors: readonly ErrorName[] = [...operation.errors, ...ROUTING_ERRORS];
  const statuses = new Set<number>();
  for (const entry of ERROR_ENTRIES) {
    if (errors.includes(entry.name)) statuses.add(entry.status);
  }
  return [...statuses].sort((a, b) => a - b);
}

/** A schema of the contract as the document states it (see `buildOpenApiDocument`). */
type SchemaOf = (schema: z.ZodMiniType, io: 'input' | 'output') => unknown;

/**
 * The OpenAPI Parameter Objects of an operation's path and query parameters, one per property
 * of their schemas (as sent: text). Every `{name}` of the path must be a path parameter, and
 * every path parameter a `{name}` of the path.
 */
function parametersOf(operation: Operation) {
  const named = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
  const parameters = (['path', 'query'] as const).flatMap((where) => {
    const schema = where === 'path' ? operation.params : operation.query;
    if (!schema) return [];
    const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
      properties?: Record<string, Record<string, unknown>>;
      required?: string[];
    };
    return Object.entries(json.properties ?? {}).map(([name, property]) => {
      const { description, ...rest } = property;
      return {
        name,
        in: where,
        required: where === 'path' || (json.required ?? []).includes(name),
        ...(typeof description === 'string' ? { description } : {}),
        schema: rest,
      };
    });
  });
  const inPath = parameters.filter((parameter) => parameter.in === 'path').map((p) => p.name);
  if (named.join() !== inPath.join()) {
    throw new Error(
      `${operation.operationId}: the path ${operation.path} names {${named.join('}, {')}} but its params schema has ${inPath.join(', ') || 'none'}`,
    );
  }
  return parameters;
}

function registerOperation(
  registry: OpenAPIRegistry,
  operation: Operation,
  schemaOf: SchemaOf,
): void {
  const { examples = {} } = operation;
  const parameters = parametersOf(operation);
  registry.registerPath({
    operationId: operation.operationId,
    method: operation.method,
    path: operation.path,
    summary: operation.summary,
    description: operation.description,
    tags: [operation.tag],
    security: operation.auth === 'bearer' ? [{ [BEARER]: [] }] : [],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(operation.body
      ? {
          request: {
            body: {
              required: true,
              description: 'Required.',
              content: {
                'application/json': {
                  schema: schemaOf(operation.body, 'input') as never,
                  ...(examples.request ? { examples: examples.request } : {}),
                },
              },
            },
          },
        }
      : {}),
    responses: {
      [operation.response.status]: {
        description: operation.success,
        ...(operation.auth === 'bearer'
          ? { headers: headersOf('authenticated success') ?? {} }
          : {}),
        content: {
          'application/json': {
            schema: schemaOf(operation.response.schema, 'output') as never,
            ...(examples.response ? { examples: examples.response } : {}),
          },
        },
      },
      ...Object.fromEntries(
        statusesOf(operation).map((status) => [
          status,
          { $ref: `#/components/responses/${STATUS_RESPONSES[status]?.name}` },
        ]),
      ),
    },
  });
}

/**
 * Builds the OpenAPI 3.1 document from the contract's operations: the one place the published
 * document comes from. A schema with a documented twin (classic.ts: names, prose, bounds) is
 * stated by it; any other by zod's own JSON Schema of it.
 *
 * @example
 * const doc = buildOpenApiDocument();
 * doc.paths?.['/plants']?.post?.operationId; // 'createPlant'
 */
export function buildOpenApiDocument(
  operations: Readonly<Record<string, Operation>> = contract,
): OpenApiDocument {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', BEARER, {
    type: 'http',
    scheme: 'bearer',
    description: BEARER_PROSE,
  });
  const twins = documentedTwins();
  const schemaOf: SchemaOf = (schema, io) => {
    const twin = twins.get(schema);
    if (twin) return twin;
    const { $schema, ...json } = z.toJSONSchema(schema, { io, unrepresentable: 'any' });
    return json;
  };
  const listed = Object.values(operations);
  // Only the error responses some operation refers to: no unused component.
  const used = new Set(listed.flatMap((operation) => statusesOf(operation)));
  for (const status of ERROR_STATUSES.filter((status) => used.has(status))) {
    const { name, component } = errorResponse(status);
    registry.registerComponent('responses', name, component);
  }
  for (const operation of listed) registerOperation(registry, operation, schemaOf);

  // Error is named by its documented `id`; it is listed here because the operations reach it
  // only through the `$ref`s of the error responses (`registry.register` would need zod
  // extended with `.openapi()`).
  const definitions = [
    { type: 'schema' as const, schema: schemaOf(ErrorBody, 'output') as never },
    ...registry.definitions,
  ];
  return new OpenApiGeneratorV31(definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Plant Store',
      version: API_VERSION,
      description: describeApi(readFileSync(DESCRIPTION_FILE, 'utf8')),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'The server this document is served from' }],
    security: [{ [BEARER]: [] }],
    tags: [
      { name: 'plants', 'x-displayName': 'Plants', description: TAG_PROSE.plants },
      { name: 'operations', 'x-displayName': 'Operations', description: TAG_PROSE.operations },
    ],
  });
}
