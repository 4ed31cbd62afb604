import { brotliCompressSync, constants, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/store/sqlite/driver.ts';
import { exchange, type RawReply } from '../security/exchange.ts';
import { OpenApiResponseValidator } from '../support/openapi-validator.ts';
import { startTestServer, type TestServer } from '../support/start-test-server.ts';

// Bugs the fuzz test (fuzz.test.ts) found, each pinned by its smallest case. Real server,
// real sockets on 127.0.0.1, a real SQLite file.

const validator = new OpenApiResponseValidator();
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.dispose();
});

async function post(
  body: Uint8Array | string,
  headers: Record<string, string> = {},
): Promise<RawReply & { json: { error?: number; message?: string; name?: string } }> {
  const reply = await exchange(server.url, {
    method: 'POST',
    path: '/plants',
    headers: {
      authorization: `Bearer ${server.token}`,
      'content-type': 'application/json',
      ...headers,
    },
    body: typeof body === 'string' ? Buffer.from(body) : body,
  });
  const json = JSON.parse(reply.text);
  validator.assertResponse('post', '/plants', reply.status, json);
  return { ...reply, json };
}

function rowCount(): number {
  const db = openSqlite(server.databaseFile, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM plants').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('a body that is not what its Content-Encoding says', () => {
  // zlib's Z_DATA_ERROR is the client's fault: 400, never an unexpected failure (500).
  const plant = Buffer.from('{"id": 1, "name": "Fern"}');
  it.each([
    ['gzip', plant],
    ['deflate', plant],
    ['gzip', gzipSync(plant).subarray(0, 12)],
    ['deflate', deflateSync(plant).subarray(0, 6)],
  ])('%s that is not (or is cut short) → 400 40002, nothing stored', async (coding, body) => {
    const reply = await post(body, { 'content-encoding': coding });
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({
      error: 40002,
      message: 'Request body could not be decoded as its Content-Encoding says',
    });
    expect(rowCount()).toBe(0);
  });

  it('still reads a body that is what it says', async () => {
    const reply = await post(gzipSync('{"id": 1, "name": "Fern"}'), { 'content-encoding': 'gzip' });
    expect(reply.status).toBe(200);
    expect(rowCount()).toBe(1);
  });
});

describe('a brotli body', () => {
  // Refused unread: a 27-byte body may announce a 16 MB window, which the decoder would take
  // for each such request at once (body-bombs.test.ts measures it).
  it('→ 415, nothing stored, whatever it holds', async () => {
    for (const body of [
      brotliCompressSync('{"id": 1, "name": "Fern"}'),
      brotliCompressSync(Buffer.alloc(1024 * 1024), {
        params: { [constants.BROTLI_PARAM_LGWIN]: 24 },
      }),
    ]) {
      const reply = await post(body, { 'content-encoding': 'br' });
      expect(reply.status).toBe(415);
      expect(reply.json).toEqual({
        error: 41501,
        message:
          'Request body must be application/json in UTF-8, with no content encoding other than gzip or deflate',
      });
    }
    expect(rowCount()).toBe(1);
  });
});

describe('a content coding named in another case', () => {
  // Codings are case-insensitive (RFC 9110 §8.4.1), but koa-bodyparser's inflation matches
  // them exactly: one it would not decode is refused unread, never answered 500.
  it.each([
    ['GZIP', gzipSync],
    ['Deflate', deflateSync],
    ['BR', brotliCompressSync],
  ] as const)('%s → 415 41501, nothing stored', async (coding, encode) => {
    const before = rowCount();
    const reply = await post(encode('{"id": 77, "name": "Case"}'), {
      'content-encoding': coding,
    });
    expect(reply.status).toBe(415);
    expect(reply.json.error).toBe(41501);
    expect(rowCount()).toBe(before);
  });
});

describe('an id that is not an integer, though a double rounds it to one', () => {
  // A double rounds each to an integer (1, 0, 0, 4503599627370496): refused, never rounded.
  it.each(['1.0000000000000000001', '1e-400', '-1e-400', '4503599627370496.5'])(
    '%s → 400 40001, nothing stored',
    async (id) => {
      const before = rowCount();
      const reply = await post(`{"id": ${id}, "name": "Fraction"}`);
      expect(reply.status).toBe(400);
      expect(reply.json.error).toBe(40001);
      expect(reply.json.message).toMatch(/^id: .*got a non-integer number/);
      expect(rowCount()).toBe(before);
    },
  );

  it('an integral value however written is still that integer', async () => {
    const reply = await post(`{"id": 2${'0'.repeat(40)}e-40, "name": "Two"}`);
    expect(reply.status).toBe(200);
  });
});

describe('a body that is not UTF-8', () => {
  // Bad bytes are refused, never replaced with U+FFFD and stored.
  it.each([[[0xff]], [[0xc3]], [[0xc0, 0xaf]], [[0xed, 0xa0, 0x80]]])(
    '%j in a name → 400 40002, nothing stored',
    async (bad) => {
      const before = rowCount();
      const body = Buffer.concat([
        Buffer.from('{"id": 3, "name": "a'),
        Buffer.from(bad),
        Buffer.from('b"}'),
      ]);
      const reply = await post(body);
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual({ error: 40002, message: 'Request body is not valid UTF-8' });
      expect(rowCount()).toBe(before);
    },
  );

  it('stores a UTF-8 name exactly, and a BOM before the JSON is ignored', async () => {
    const reply = await post(`\ufeff{"id": 4, "name": "Bégonia 🌱"}`);
    expect(reply.status).toBe(200);
    expect(reply.json.name).toBe('Bégonia 🌱');
  });
});

describe('name and tag lengths are counted in characters (code points), as JSON Schema does', () => {
  // zod 4 and the document's maxLength count code points, and so does the OpenAPI prose.
  it('accepts 200 astral characters (400 UTF-16 units) as a name, refuses 201', async () => {
    expect((await post(`{"id": 5, "name": "${'🌱'.repeat(200)}"}`)).status).toBe(200);
    const reply = await post(`{"id": 6, "name": "${'🌱'.repeat(201)}"}`);
    expect(reply.status).toBe(400);
    expect(reply.json.message).toMatch(/^name: must be at most 200 characters/);
  });
});

describe('a raw control character inside a string', () => {
  // A SyntaxError from any reading of the body answers 400 40002, never 500.
  it.each(['\n', '\t', '\u0001'])(
    '%j → 400 40002 with its position, nothing stored',
    async (raw) => {
      const before = rowCount();
      const reply = await post(`{"id": 7, "name": "a${raw}b"}`);
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual({
        error: 40002,
        message: 'Request body is not valid JSON (at character 20)',
      });
      expect(rowCount()).toBe(before);
    },
  );
});
