import { readFileSync } from 'node:fs';
import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import * as z from 'zod/mini';
import {
  type Contract,
  type Operation as ContractOperation,
  contract,
  defineCall,
  defineOperation,
} from '../contract.ts';
import { ErrorBody } from '../error-body.ts';
import { ERROR_CATALOG, ERROR_ENTRIES, type ErrorName } from '../error-catalog.ts';
import { INT64_MAX, INT64_MIN } from '../int64.ts';
import { int64Param } from '../params.ts';
import { NewPlant, Plant } from '../plant.ts';
import { FIELD_LIST, fieldNames, PLANT_FIELDS } from '../plant-fields.ts';
import { RATE_LIMIT_HEADERS } from '../rate-limit-headers.ts';
import { NO_CONTROL_CHARACTERS_PATTERN } from '../text.ts';
import {
  API_VERSION,
  buildOpenApiDocument,
  type DocumentedError,
  describeApi,
  EXAMPLE_BODY_LIMIT_BYTES,
  statusDescription,
} from './document.ts';
import { FIELD_PLACEHOLDERS, STATUS_RESPONSES } from './prose.ts';
import { serializeOpenApiDocument, serializeOpenApiYaml } from './serialize.ts';

const COMMITTED = new URL('../../openapi.json', import.meta.url);

/**
 * The sentence (or list item, or table row) of `text` that shares the most words with
 * `expected`, whitespace collapsed: compared whole with `expected`, a difference prints just it.
 */
function sentenceLike(text: string, expected: string): string {
  const sentences = text.split(/\n\s*\n|\n(?=- |\| )/).flatMap((block) =>
    block
      .replace(/\s+/g, ' ')
      .trim()
      .split(/(?<=[.!?](?:\*\*)?) (?=[A-Z*`])/),
  );
  const words = new Set(expected.split(' '));
  const shared = (sentence: string) => sentence.split(' ').filter((word) => words.has(word)).length;
  return sentences.reduce(
    (best, sentence) => (shared(sentence) > shared(best) ? sentence : best),
    '',
  );
}
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
    expect(api.info.version).toBe(API_VERSION);
  });
});

describe('the generated document follows the contract', () => {
  const doc = generated;
  const schemas = doc.components?.schemas ?? {};

  it('is OpenAPI 3.1 with info.version the x.y.z API_VERSION', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe(API_VERSION);
    expect(API_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
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
    expect(Object.keys((schemas.Plant as { properties: object }).properties)).toEqual(PLANT_FIELDS);
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
    for (const path of ['/', '/healthz', '/readyz', '/openapi.json']) {
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
      '404',
      '405',
      '408',
      '409',
      '413',
      '415',
      '417',
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

  it("describes a status by its catalog entries' summaries: the one's, else each after its code", () => {
    const entries = [
      { name: 'notFound', code: 40401, status: 404, summary: 'No operation here.' },
      { name: 'plantNotFound', code: 40402, status: 404, summary: 'No plant has this id.' },
      { name: 'unsaid', code: 40801, status: 408 },
    ];
    expect(statusDescription(404, entries.slice(0, 1))).toBe('No operation here.');
    expect(statusDescription(404, entries)).toBe(
      '40401: No operation here. 40402: No plant has this id.',
    );
    expect(() => statusDescription(408, entries)).toThrow(
      'error-catalog.ts: unsaid needs a summary',
    );
    // prose.ts's shared sentence describes exactly the codes it was written for; fewer are
    // described by their summaries.
    const shared = STATUS_RESPONSES[400]?.shared;
    expect(statusDescription(400)).toBe(shared?.summary);
    expect(statusDescription(400, ERROR_ENTRIES.slice(0, 1))).toBe(ERROR_ENTRIES[0]?.summary);
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
  const routeOf = (operation: Operation): ContractOperation =>
    contract[operation.operationId as keyof Contract];

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

  // Each sentence is compared whole with the one of the description most like it, so a failing
  // test prints the sentence that differs (edit it in openapi/description.md).
  it.each([
    "An operator either lists the accepted tokens in the server's `PLANT_STORE_TOKENS` setting (comma-separated, each at least 16 characters) or issues one with the `plant-store tokens create` command on the server, which prints the new token once.",
    'The full range -9223372036854775808 … 9223372036854775807 is accepted and stored without rounding.',
    'JavaScript consumers must not round-trip ids through `JSON.parse`/`JSON.stringify` (they round above 2^53); use a `bigint`-aware serializer.',
    `Sending the same id with the same ${fieldNames('and')} again answers 200 with the same plant, so a client may safely retry.`,
    "- Request body: at most the server's configured body limit; a body over it answers 413 (`error` 41301).",
    `- ${FIELD_PLACEHOLDERS.STRING_LIMITS} (Unicode code points, as JSON Schema counts them)${FIELD_PLACEHOLDERS.OTHER_LIMITS}.`,
    'A request over the limit answers 429 (`error` 42901) with a `Retry-After` header: the real wait until the next request fits, in whole seconds (usually 1).',
    ...ERROR_ENTRIES.map((entry) => `| ${entry.code} | ${entry.status} | ${entry.meaning} |`),
  ])('says in info.description: %s', (expected) => {
    expect(sentenceLike(generated.info.description ?? '', expected)).toBe(expected);
  });

  it('names no server default: the body limit is "the server\'s configured body limit"', () => {
    // The builder's prose: description.md and prose.ts, and the headers' and statuses'
    // descriptions. The catalog's meanings (the error table) are error-catalog.ts's. The 413
    // example carries no default either: it is answered by a server started with an example
    // BODY_LIMIT, which its description names (error-examples.test.ts starts that server).
    let text = serializeOpenApiDocument(generated);
    for (const entry of ERROR_ENTRIES) text = text.replaceAll(entry.meaning, '');
    expect(text).not.toMatch(/\b(64|65,?536)\s*(KiB|KB|bytes)|65536|default settings/);
    expect(text).toContain("at most the server's configured body limit");
    const examples = (
      generated.components?.responses?.PayloadTooLarge as unknown as {
        content: Record<
          string,
          { examples: Record<string, { description?: string; value: unknown }> }
        >;
      }
    )?.content['application/json']?.examples;
    expect(examples?.payloadTooLarge).toEqual({
      summary: expect.stringMatching(/^41301: /),
      description: expect.stringContaining(`\`BODY_LIMIT=${EXAMPLE_BODY_LIMIT_BYTES}\``),
      value: {
        error: 41301,
        message: `Request body is larger than ${EXAMPLE_BODY_LIMIT_BYTES} bytes`,
      },
    });
    expect(EXAMPLE_BODY_LIMIT_BYTES).not.toBe(65_536);
  });

  it("fills description.md with the contract's values, and refuses a name it does not have", () => {
    expect(describeApi('`error` {{code:conflict}}, {{header:reset}}, {{NAME_MAX_LENGTH}}\n')).toBe(
      '`error` 40901, X-RateLimit-Reset, 200',
    );
    expect(() => describeApi('{{code:teapot}}')).toThrow(
      'description.md: {{code:teapot}} names no value',
    );
  });

  it('lists the probes and the document under Operations, and not the HTML page or its script', () => {
    expect(Object.keys(generated.paths ?? {}).sort()).toEqual([
      '/',
      '/healthz',
      '/openapi.json',
      '/plants',
      '/readyz',
    ]);
    for (const path of ['/', '/healthz', '/readyz', '/openapi.json']) {
      expect(generated.paths?.[path]?.get?.tags).toEqual(['operations']);
    }
    expect(generated.tags?.find((tag) => tag.name === 'operations')).toMatchObject({
      'x-displayName': 'Operations',
    });
    expect(generated.info.description).toMatch(/\*\*Operations\.\*\*[\s\S]*not listed/);
  });
});

describe('the document states what the server enforces', () => {
  const schemas = generated.components?.schemas ?? {};
  type Properties = Record<string, Record<string, unknown>>;
  const newPlant = (schemas.NewPlant as { properties: Properties }).properties;

  it('bounds id to int64, written as exact JSON integers in openapi.json and openapi.yaml', () => {
    expect(newPlant.id).toMatchObject({ minimum: INT64_MIN, maximum: INT64_MAX });
    for (const file of [COMMITTED, COMMITTED_YAML]) {
      const text = readFileSync(file, 'utf8');
      expect(text).toMatch(/"?minimum"?: -9223372036854775808\b/);
      expect(text).toMatch(/"?maximum"?: 9223372036854775807\b/);
    }
  });

  it('gives name and tag the pattern the server checks: no C0, DEL or C1 control', () => {
    for (const { name: field } of FIELD_LIST.filter(({ type }) => type === 'string')) {
      expect(newPlant[field]?.pattern).toBe(NO_CONTROL_CHARACTERS_PATTERN);
    }
    const pattern = new RegExp(NO_CONTROL_CHARACTERS_PATTERN, 'u');
    for (const code of [0x00, 0x1f, 0x7f, 0x82, 0x9f]) {
      const text = `a${String.fromCodePoint(code)}`;
      expect(pattern.test(text), code.toString(16)).toBe(false);
      expect(NewPlant.safeParse({ id: 1, name: text }).success).toBe(false);
    }
    for (const text of ['Monstera', 'a\u00a0b', 'ü', '\u{1f331}']) {
      expect(pattern.test(text)).toBe(true);
      expect(NewPlant.safeParse({ id: 1, name: text }).success).toBe(true);
    }
    expect(generated.info.description).toMatch(/lone surrogate/);
  });

  it('has no unused component', () => {
    const text = serializeOpenApiDocument(generated);
    for (const [kind, components] of Object.entries(generated.components ?? {})) {
      if (kind === 'securitySchemes') continue;
      for (const name of Object.keys(components as object)) {
        expect(text, `${kind}/${name}`).toContain(`"$ref": "#/components/${kind}/${name}"`);
      }
    }
  });

  it('lists 404 and 405 on every operation, and each status with the headers the server sends', () => {
    type Response = { $ref?: string };
    const responses = generated.components?.responses as Record<
      string,
      { headers?: Record<string, unknown> }
    >;
    expect(Object.keys(responses.Unauthorized?.headers ?? {})).toEqual(['WWW-Authenticate']);
    expect(Object.keys(responses.MethodNotAllowed?.headers ?? {})).toEqual(['Allow']);
    const limitHeaders = Object.values(RATE_LIMIT_HEADERS);
    expect(Object.keys(responses.TooManyRequests?.headers ?? {})).toEqual([
      'Retry-After',
      ...limitHeaders,
    ]);
    expect(Object.keys(responses.ServiceUnavailable?.headers ?? {})).toEqual([
      'Retry-After',
      ...limitHeaders,
    ]);
    // The rate-limit headers: optional (the limit may be off; a 429 for an address refused
    // before any credential was accepted has none), on every answer after the credential check
    // and on the success of every operation that requires a credential, and only there.
    for (const name of ['BadRequest', 'Conflict', 'PayloadTooLarge', 'UnsupportedMediaType']) {
      expect(Object.keys(responses[name]?.headers ?? {}), name).toEqual(limitHeaders);
    }
    for (const name of limitHeaders) {
      expect(responses.TooManyRequests?.headers?.[name]).toMatchObject({ required: false });
    }
    expect(Object.keys(responses.InternalError?.headers ?? {})).toEqual([]);
    for (const [path, item] of Object.entries(generated.paths ?? {})) {
      for (const operation of Object.values(
        item as Record<string, { security?: unknown[]; responses: Record<string, unknown> }>,
      )) {
        const success = Object.entries(operation.responses).find(([status]) =>
          status.startsWith('2'),
        )?.[1] as { headers?: Record<string, unknown> } | undefined;
        const authenticated = (operation.security?.length ?? 0) > 0;
        expect(Object.keys(success?.headers ?? {}), path).toEqual(
          authenticated ? limitHeaders : [],
        );
      }
    }
    // An operation with a 404 of its own lists notFound in a response of its own.
    type Examples = { content: { 'application/json': { examples: Record<string, unknown> } } };
    const examplesOf = (response?: Response) =>
      Object.keys(
        (responses[response?.$ref?.replace('#/components/responses/', '') ?? ''] as Examples)
          ?.content['application/json'].examples ?? {},
      );
    for (const [path, item] of Object.entries(generated.paths ?? {})) {
      for (const operation of Object.values(item as Record<string, { responses: object }>)) {
        const listed = operation.responses as Record<string, Response>;
        expect(examplesOf(listed['404']), path).toContain('notFound');
        expect(listed['405']?.$ref, path).toBe('#/components/responses/MethodNotAllowed');
      }
    }
    const post = generated.paths?.['/plants']?.post?.responses as Record<string, Response>;
    for (const [status, name] of [
      ['401', 'Unauthorized'],
      ['413', 'PayloadTooLarge'],
      ['415', 'UnsupportedMediaType'],
      ['429', 'TooManyRequests'],
      ['503', 'ServiceUnavailable'],
    ]) {
      expect(post[status ?? '']?.$ref).toBe(`#/components/responses/${name}`);
    }
    const ready = generated.paths?.['/readyz']?.get?.responses as Record<string, Response>;
    expect(ready['503']?.$ref).toBe('#/components/responses/ServiceUnavailable');
  });
});

describe('operations with parameters', () => {
  const thing = defineOperation(
    defineCall({
      operationId: 'getThing',
      method: 'get',
      path: '/things/{id}',
      auth: 'none',
      params: z.object({ id: z.string().check(z.regex(/^[0-9]+$/)) }),
      query: z.object({ page: z.optional(z.string()) }),
      response: { status: 200, schema: Plant },
    }),
    {
      tag: 'plants',
      errors: ['notFound'],
      summary: 'Read',
      description: 'A thing.',
      success: 'It.',
    },
  );

  it('lists the path and query parameters, as text, the optional ones not required', () => {
    const operation = buildOpenApiDocument({ getThing: thing }).paths?.['/things/{id}']?.get;
    expect(operation?.parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9]+$' } },
      { name: 'page', in: 'query', required: false, schema: { type: 'string' } },
    ]);
    expect(Object.keys(operation?.responses ?? {})).toEqual(['200', '404', '405']);
  });

  it('states a textParam (a check JSON Schema cannot state) as text', () => {
    const read = { ...thing, params: z.object({ id: int64Param }) };
    expect(
      buildOpenApiDocument({ getThing: read }).paths?.['/things/{id}']?.get?.parameters?.[0],
    ).toEqual({ name: 'id', in: 'path', required: true, schema: { type: 'string' } });
  });

  it('refuses a path whose {name}s are not its path parameters, naming both', () => {
    const wrong = { ...thing, path: '/things/{thingId}' };
    expect(() => buildOpenApiDocument({ getThing: wrong })).toThrow(
      'getThing: the path /things/{thingId} names {thingId} but its params schema has id',
    );
  });
});

describe('error responses, per operation', () => {
  // A 404 code of its own, as "Adding an operation" (docs/architecture.md) adds one.
  const thingNotFound: DocumentedError = {
    name: 'thingNotFound',
    code: 40499,
    status: 404,
    meaning: 'No thing has this id.',
    summary: 'No thing has the requested id.',
    message: 'No thing with id 12',
    example: (message) => String(message),
  };
  const getThing = defineOperation(
    defineCall({
      operationId: 'getThing',
      method: 'get',
      path: '/things/{id}',
      auth: 'none',
      params: z.object({ id: int64Param }),
      response: { status: 200, schema: Plant },
    }),
    {
      tag: 'plants',
      errors: ['validationFailed', 'thingNotFound' as ErrorName, 'internal'],
      summary: 'Read',
      description: 'A thing.',
      success: 'It.',
    },
  );
  const doc = buildOpenApiDocument({ createPlant: contract.createPlant, getThing }, [
    ...ERROR_ENTRIES,
    thingNotFound,
  ] as DocumentedError[]);
  type Response = {
    description: string;
    content: { 'application/json': { examples: Record<string, { value: { error: number } }> } };
  };
  const responses = doc.components?.responses as Record<string, Response>;
  const paths = doc.paths as Record<
    string,
    Record<string, { responses: Record<string, { $ref?: string }> }>
  >;
  /** The component an operation's response for `status` refers to: its name, description and codes. */
  function errorResponse(path: string, method: 'get' | 'post', status: number) {
    const $ref = paths[path]?.[method]?.responses[status]?.$ref ?? '';
    const name = $ref.replace('#/components/responses/', '');
    const response = responses[name];
    const examples = Object.values(response?.content['application/json'].examples ?? {});
    return { name, description: response?.description, codes: examples.map((e) => e.value.error) };
  }

  it("lists in each operation's 404 only the codes it can answer with", () => {
    const { notFound } = ERROR_CATALOG;
    expect(errorResponse('/plants', 'post', 404)).toEqual({
      name: 'NotFound',
      description: notFound.summary,
      codes: [40401],
    });
    expect(errorResponse('/things/{id}', 'get', 404)).toEqual({
      name: 'GetThingNotFound',
      description: `40401: ${notFound.summary} 40499: No thing has the requested id.`,
      codes: [40401, 40499],
    });
  });

  it("describes a status by prose.ts's shared sentence only for the codes it was written for", () => {
    expect(errorResponse('/plants', 'post', 400)).toMatchObject({
      name: 'BadRequest',
      description: STATUS_RESPONSES[400]?.shared?.summary,
    });
    expect(errorResponse('/things/{id}', 'get', 400)).toEqual({
      name: 'GetThingBadRequest',
      description: ERROR_CATALOG.validationFailed.summary,
      codes: [40001],
    });
  });

  it('shares the response of a status whose codes are the same for both operations', () => {
    for (const [status, name] of [
      [405, 'MethodNotAllowed'],
      [500, 'InternalError'],
    ] as const) {
      expect(errorResponse('/plants', 'post', status).name).toBe(name);
      expect(errorResponse('/things/{id}', 'get', status).name).toBe(name);
    }
  });

  it('stays a valid OpenAPI 3.1 document', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  });

  it('gives one operation only the shared responses of its statuses', () => {
    const alone = buildOpenApiDocument({ createPlant: contract.createPlant });
    const names = Object.values(STATUS_RESPONSES).map((response) => response.name);
    expect(names).toEqual(expect.arrayContaining(Object.keys(alone.components?.responses ?? {})));
  });
});
