import { Readable } from 'node:stream';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { contract, ERROR_MESSAGES, NewPlant, type Operation } from '@plant-store/schema';
import typeIs from 'type-is';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { DEFAULTS } from '../config.ts';

// The body's declared length: a Content-Length over the limit is refused before a byte of the
// body is read, however large (co-body's `~~length` misread 2^31 and more as 0 or a negative
// number: 400 "Request body is required", or a 408 after 30 s). Injected into the app;
// test/e2e/protocol.test.ts sends a body in 1-byte chunks over a socket.

let server: TestApp;
beforeAll(async () => {
  server = await createTestApp();
});
afterAll(async () => {
  await server.dispose();
});

const TOO_LARGE = `{"error":41301,"message":"Request body is larger than ${DEFAULTS.bodyLimitBytes} bytes"}`;

/** A create with the test app's credential, a JSON content type and `headers`, injected. */
const post = (payload: string | Buffer | Readable, headers: Record<string, string> = {}) =>
  server.inject({
    method: 'POST',
    url: '/plants',
    headers: {
      authorization: `Bearer ${server.token}`,
      'content-type': 'application/json',
      ...headers,
    },
    payload,
  });

it.each(['104857600', '2147483648', '3000000000', '4294967296', '20000000000'])(
  'answers Content-Length: %s with 413 and closes, reading none of the body',
  async (length) => {
    const answer = await post('{"id": 1,', { 'content-length': length });
    expect(answer.statusCode).toBe(413);
    expect(answer.headers.connection).toBe('close');
    expect(answer.body).toBe(TOO_LARGE);
    expect(answer.raw.req.readableEnded).toBe(false);
  },
);

it('reads every body of the contract as a NewPlant, the flat record its limits are made for', () => {
  const bodies = Object.values(contract).flatMap((operation: Operation) =>
    operation.body ? [operation.body] : [],
  );
  expect(bodies.length).toBeGreaterThan(0);
  for (const body of bodies) expect(body).toBe(NewPlant);
});

// json-body.ts matches the media type itself: what it reads is what type-is (Koa's `ctx.is`)
// calls application/json or application/*+json.
it.each([
  'application/json',
  'Application/JSON; charset=utf-8',
  'application/problem+json',
  'APPLICATION/X.Y+JSON',
  'application/a+b+json',
  `application/${'a'.repeat(122)}+json`,
  `application/${'a'.repeat(123)}+json`,
  'application/+json',
  'application/*+json',
  'application/%+json',
  'application/jsonx',
  'application/json/x',
  'application/json, text/plain',
  'text/json',
  '"application/json"',
])('answers a create sent as %s as type-is reads it', async (type) => {
  const read = typeIs.is(type, ['application/json', 'application/*+json']) !== false;
  const id = 700 + Math.floor(Math.random() * 1_000_000);
  const response = await server.fetch('/plants', {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': type },
    body: JSON.stringify({ id, name: 'Fern' }),
  });
  expect(response.status).toBe(read ? 200 : 415);
});

// Encoded bodies: the limit counts the bytes once decoded; a coding the server does not decode
// (brotli's decoder takes up to 16 MB for a few bytes; codings are matched as co-body's inflation
// matches them, exactly) is refused before a byte is read.
const bodyPastLimit = `{"id": 1, "name": "${'x'.repeat(DEFAULTS.bodyLimitBytes)}"}`;

it('answers a gzip body that decodes past BODY_LIMIT with 413, storing nothing', async () => {
  const sent = gzipSync(bodyPastLimit);
  expect(sent.length).toBeLessThan(DEFAULTS.bodyLimitBytes);
  const before = server.rows().length;
  const answer = await post(sent, { 'content-encoding': 'gzip' });
  expect([answer.statusCode, answer.body]).toEqual([413, TOO_LARGE]);
  expect(server.rows().length).toBe(before);
});

const UNSUPPORTED_CODING = JSON.stringify({
  error: 41501,
  message:
    'Request body must be application/json in UTF-8, with no content encoding other than gzip or deflate',
});

it.each([
  ['br', brotliCompressSync('{"id": 2, "name": "Fern"}')],
  ['compress', Buffer.from('{"id": 2, "name": "Fern"}')],
  ['GZIP', gzipSync('{"id": 2, "name": "Fern"}')],
  ['gzip, gzip', gzipSync(gzipSync('{"id": 2, "name": "Fern"}'))],
])('answers Content-Encoding: %s with 415 unread, storing nothing', async (coding, sent) => {
  const before = server.rows().length;
  const answer = await post(sent, { 'content-encoding': coding });
  expect([answer.statusCode, answer.body]).toEqual([415, UNSUPPORTED_CODING]);
  expect(answer.raw.req.readableEnded).toBe(false);
  expect(server.rows().length).toBe(before);
});

it('reads a gzip body within BODY_LIMIT, and refuses bytes that are not UTF-8 with 400', async () => {
  const gzipped = { 'content-encoding': 'gzip' };
  const read = await post(gzipSync('{"id": 3, "name": "Fern \u00e9"}'), gzipped);
  expect([read.statusCode, JSON.parse(read.body)]).toEqual([200, { name: 'Fern é' }]);
  const notUtf8 = await post(
    gzipSync(Buffer.from('{"id": 4, "name": "Fern \xe9"}', 'latin1')),
    gzipped,
  );
  expect([notUtf8.statusCode, JSON.parse(notUtf8.body)]).toEqual([
    400,
    { error: 40002, message: ERROR_MESSAGES.malformedJson.notUtf8 },
  ]);
});

// What the reader (koa-bodyparser: raw-body, zlib) throws while reading, as the Error shape.
describe('a body that fails while it is read', () => {
  it('answers a chunked body past BODY_LIMIT with 413, storing nothing', async () => {
    const before = server.rows().length;
    const chunks = Readable.from([
      Buffer.from(bodyPastLimit.slice(0, 100)),
      Buffer.from(bodyPastLimit.slice(100)),
    ]);
    const answer = await post(chunks, { 'transfer-encoding': 'chunked' });
    expect([answer.statusCode, answer.body]).toEqual([413, TOO_LARGE]);
    expect(server.rows().length).toBe(before);
  });

  it('answers a body shorter than its Content-Length with 400', async () => {
    const answer = await post('{"id": 5', { 'content-length': '100' });
    expect([answer.statusCode, answer.json()]).toEqual([
      400,
      { error: 40002, message: ERROR_MESSAGES.malformedJson.cutShort },
    ]);
  });

  it.each(['gzip', 'deflate'])(
    'answers bytes that are not %s, as their Content-Encoding says, with 400',
    async (coding) => {
      const answer = await post('{"id": 6, "name": "Fern"}', { 'content-encoding': coding });
      expect([answer.statusCode, answer.json()]).toEqual([
        400,
        { error: 40002, message: ERROR_MESSAGES.malformedJson.undecodable },
      ]);
    },
  );
});
