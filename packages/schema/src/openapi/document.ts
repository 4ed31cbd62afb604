import { readFileSync } from 'node:fs';
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import * as z from 'zod/mini';
import { contract, type Operation, ROUTING_ERRORS } from '../contract.ts';
import { ErrorBody } from '../error-body.ts';
import {
  type CatalogEntry,
  ERROR_CATALOG,
  ERROR_ENTRIES,
  EXAMPLE_BODY_LIMIT_BYTES,
  EXAMPLE_REQUEST_TIMEOUT_SECONDS,
} from '../error-catalog.ts';
import { INT64_MAX, INT64_MIN } from '../int64.ts';
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

/** The values of the examples, chosen for them (not the server's defaults): error-catalog.ts. */
export { EXAMPLE_BODY_LIMIT_BYTES, EXAMPLE_REQUEST_TIMEOUT_SECONDS };

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

/** A catalog entry as the document reads it: error-catalog.ts's, or a test's. */
export type DocumentedError = CatalogEntry & { readonly name: string };

/**
 * The description of an error status's response listing `entries`' codes of `status`:
 * prose.ts's shared sentence where it was written for exactly those codes; else the only code's
 * `summary` (error-catalog.ts), or each code's after it.
 *
 * @example
 * statusDescription(404); // 'No operation exists at the requested path: …'
 * // with a second 404 code: '40401: No operation exists … 40402: No plant has this id.'
 */
export function statusDescription(
  status: number,
  entries: readonly Pick<DocumentedError, 'name' | 'code' | 'status' | 'summary'>[] = ERROR_ENTRIES,
): string {
  const own = entries.filter((entry) => entry.status === status);
  const shared = STATUS_RESPONSES[status]?.shared;
  if (shared && names(own) === [...shared.errors].sort().join()) return shared.summary;
  return own
    .map(({ name, code, summary }) => {
      if (summary === undefined) {
        throw new Error(
          `error-catalog.ts: ${name} needs a summary (or openapi/prose.ts a shared sentence for the ${status} codes ${names(own)})`,
        );
      }
      return own.length === 1 ? summary : `${code}: ${summary}`;
    })
    .join(' ');
}

/** The names of some catalog entries, sorted and joined: equal lists, equal texts. */
const names = (entries: readonly { name: string }[]) =>
  entries
    .map((entry) => entry.name)
    .sort()
    .join();

/** The response of an error status: one example per code of `entries`, each as the server sends it. */
function errorResponse(status: number, entries: readonly DocumentedError[]) {
  const headers = headersOf(status);
  return {
    description: statusDescription(status, entries),
    ...(headers ? { headers } : {}),
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/Error' },
        examples: Object.fromEntries(
          entries.map((entry) => [
            entry.name,
            {
              summary: `${entry.code}: ${entry.meaning}`,
              ...(entry.exampleNote ? { description: entry.exampleNote } : {}),
              value: { error: entry.code, message: entry.example(entry.message) },
            },
          ]),
        ),
      },
    },
  };
}

/** The catalog errors an operation can answer with (its own and the router's), by status. */
function errorsByStatus(
  operation: Operation,
  errors: readonly DocumentedError[],
): Map<number, DocumentedError[]> {
  const named: readonly string[] = [...operation.errors, ...ROUTING_ERRORS];
  const byStatus = new Map<number, DocumentedError[]>();
  for (const entry of errors) {
    if (named.includes(entry.name)) {
      byStatus.set(entry.status, [...(byStatus.get(entry.status) ?? []), entry]);
    }
  }
  return byStatus;
}

/**
 * The error responses of the operations, each listing exactly the codes its operation can
 * answer with that status. A status's response (`NotFound`, prose.ts) lists the codes of the
 * first operation that answers it, and every operation answering it with the same codes refers
 * to it; an operation answering it with other codes has its own (`GetPlantNotFound`).
 */
function errorResponses(operations: readonly Operation[], errors: readonly DocumentedError[]) {
  const components = new Map<string, { status: number; entries: DocumentedError[] }>();
  const refs = new Map<Operation, Record<number, { $ref: string }>>();
  for (const operation of operations) {
    const own: Record<number, { $ref: string }> = {};
    for (const [status, entries] of errorsByStatus(operation, errors)) {
      const shared = STATUS_RESPONSES[status]?.name;
      if (!shared) {
        throw new Error(`openapi/prose.ts: STATUS_RESPONSES has no name for status ${status}`);
      }
      const taken = components.get(shared);
      const name =
        !taken || names(taken.entries) === names(entries)
          ? shared
          : `${operation.operationId.charAt(0).toUpperCase()}${operation.operationId.slice(1)}${shared}`;
      components.set(name, { status, entries });
      own[status] = { $ref: `#/components/responses/${name}` };
    }
    refs.set(operation, own);
  }
  const byStatus = [...components].sort(([, a], [, b]) => a.status - b.status);
  return {
    components: byStatus.map(([name, { status, entries }]) => ({
      name,
      component: errorResponse(status, entries),
    })),
    refs,
  };
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
        // A parameter is text: one whose schema JSON Schema cannot state (a textParam) is a string.
        schema: Object.keys(rest).length === 0 ? { type: 'string' } : rest,
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
  errorRefs: Record<number, { $ref: string }>,
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
      ...errorRefs,
    },
  });
}

/**
 * Builds the OpenAPI 3.1 document from the contract's operations: the one place the published
 * document comes from. A schema with a documented twin (classic.ts: names, prose, bounds) is
 * stated by it; any other by zod's own JSON Schema of it. `errors`: the catalog the operations'
 * errors are named in (a test passes its own).
 *
 * @example
 * const doc = buildOpenApiDocument();
 * doc.paths?.['/plants']?.post?.operationId; // 'createPlant'
 */
export function buildOpenApiDocument(
  operations: Readonly<Record<string, Operation>> = contract,
  errors: readonly DocumentedError[] = ERROR_ENTRIES as readonly DocumentedError[],
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
  const { components, refs } = errorResponses(listed, errors);
  for (const { name, component } of components) {
    registry.registerComponent('responses', name, component);
  }
  for (const operation of listed) {
    registerOperation(registry, operation, schemaOf, refs.get(operation) ?? {});
  }

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
