import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parseJson, stringifyJson } from '@plant-store/schema';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/start-test-server.ts';

// Requests generated from the OpenAPI document itself, sent to a real server: every body the
// document's NewPlant schema allows must be accepted (200, or 409 for an id already taken by
// another name). Any 400 is a rule the server enforces that the document does not state. The
// one rule JSON Schema cannot express, well-formed Unicode, is listed in the document's
// description, so the generator never writes a lone surrogate.

// biome-ignore lint/suspicious/noExplicitAny: a JSON Schema read from a document, walked generically
type JsonSchema = Record<string, any>;
type Document = { components: { schemas: Record<string, JsonSchema> } };

const RUNS = 300;
// Where a schema gives no bound, ids are drawn from a range well beyond int64.
const UNBOUNDED = 2n ** 80n;
const SURROGATES = { min: 0xd800, max: 0xdfff };

/** One code point, lone surrogates excluded; the low range (controls, Latin-1) is favoured. */
const codePoint = fc
  .oneof(
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xff }) },
    { weight: 4, arbitrary: fc.integer({ min: 0x100, max: 0x10ffff }) },
  )
  .filter((code) => code < SURROGATES.min || code > SURROGATES.max)
  .map((code) => String.fromCodePoint(code));

function resolve(schema: JsonSchema, document: Document): JsonSchema {
  const ref = schema.$ref as string | undefined;
  if (ref === undefined) return schema;
  const name = ref.replace('#/components/schemas/', '');
  const target = document.components.schemas[name];
  if (!target) throw new Error(`unresolved ${ref}`);
  return target;
}

function toBigInt(value: unknown, fallback: bigint): bigint {
  return typeof value === 'number' || typeof value === 'bigint' ? BigInt(value) : fallback;
}

/**
 * A fast-check arbitrary of the values `schema` allows, for the keywords NewPlant uses:
 * object (properties, required, additionalProperties: false), integer (minimum, maximum, read
 * exactly) and string (minLength, maxLength in code points, pattern with the `u` flag).
 */
export function valuesOf(schema: JsonSchema, document: Document): fc.Arbitrary<unknown> {
  const resolved = resolve(schema, document);
  switch (resolved.type) {
    case 'object': {
      const properties = resolved.properties as Record<string, JsonSchema>;
      if (resolved.additionalProperties !== false) {
        throw new Error('only closed objects are generated');
      }
      const record = Object.fromEntries(
        Object.entries(properties).map(([key, value]) => [key, valuesOf(value, document)]),
      );
      return fc.record(record, { requiredKeys: resolved.required ?? [] });
    }
    case 'integer':
      return fc.bigInt({
        min: toBigInt(resolved.minimum, -UNBOUNDED),
        max: toBigInt(resolved.maximum, UNBOUNDED),
      });
    case 'string': {
      const pattern =
        typeof resolved.pattern === 'string' ? new RegExp(resolved.pattern, 'u') : undefined;
      return fc
        .array(codePoint, {
          minLength: resolved.minLength ?? 0,
          maxLength: resolved.maxLength ?? 50,
        })
        .map((points) => points.join(''))
        .filter((text) => pattern?.test(text) ?? true);
    }
    default:
      throw new Error(`no generator for type ${JSON.stringify(resolved.type)}`);
  }
}

interface Rejection {
  readonly body: string;
  readonly status: number;
  readonly message: string;
}

/** Sends `RUNS` NewPlant bodies the document allows; returns those the server refused. */
async function rejectedBodies(server: TestServer, document: Document): Promise<Rejection[]> {
  const bodies = fc.sample(valuesOf({ $ref: '#/components/schemas/NewPlant' }, document), RUNS);
  const rejected: Rejection[] = [];
  for (const value of bodies) {
    const body = stringifyJson(value);
    const response = await fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body,
    });
    const answer = (await response.json()) as { message?: string };
    if (response.status !== 200 && response.status !== 409) {
      rejected.push({ body, status: response.status, message: answer.message ?? '' });
    }
  }
  return rejected;
}

const require = createRequire(import.meta.url);
const RELEASED_1_0_0 = join(
  dirname(require.resolve('@plant-store/schema/openapi.json')),
  'contract-snapshots',
  '1.0.0.json',
);

describe('bodies generated from the OpenAPI document, sent to a real server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.dispose());

  it('finds no body the served /openapi.json allows that the server rejects', async () => {
    // Read losslessly: the id bounds are exact 64-bit integers in the document.
    const response = await fetch(`${server.url}/openapi.json`);
    const document = parseJson(await response.text()) as Document;
    const rejected = await rejectedBodies(server, document);
    console.info(`served document: ${rejected.length} of ${RUNS} document-valid bodies rejected`);
    expect(rejected).toEqual([]);
  }, 120_000);

  it('excludes {"id": 10, "name": "\\u0082"} by the served pattern, as the server refuses it', async () => {
    const response = await fetch(`${server.url}/openapi.json`);
    const document = parseJson(await response.text()) as Document;
    const name = document.components.schemas.NewPlant?.properties.name as JsonSchema;
    expect(new RegExp(name.pattern, 'u').test('\u0082')).toBe(false);
    const refused = await fetch(`${server.url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body: '{"id": 10, "name": "\\u0082"}',
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 40001 });
  });

  it('does find such bodies with the released 1.0.0 document, which stated fewer rules', async () => {
    const document = parseJson(readFileSync(RELEASED_1_0_0, 'utf8')) as Document;
    const rejected = await rejectedBodies(server, document);
    console.info(
      `1.0.0 document: ${rejected.length} of ${RUNS} document-valid bodies rejected, e.g. ` +
        rejected
          .slice(0, 3)
          .map((r) => `${r.body} → ${r.status} ${r.message}`)
          .join(' | '),
    );
    expect(rejected.length).toBeGreaterThanOrEqual(1);
    for (const { status, message } of rejected) {
      expect(status).toBe(400);
      expect(message).toMatch(/must not contain control characters|must be an integer from/);
    }
  }, 120_000);
});
