import { contract, NewPlant } from '@plant-store/schema';
import typeIs from 'type-is';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sendRawBytes } from '../../test/support/raw-socket.ts';
import { readPlantRows } from '../../test/support/read-plant-rows.ts';
import { startTestServer, type TestServer } from '../../test/support/start-test-server.ts';
import { DEFAULTS } from '../config.ts';

// The body's declared length, over a raw socket: a Content-Length over the limit is refused
// before a byte of the body is read, however large (co-body's `~~length` misread 2^31 and more
// as 0 or a negative number: 400 "Request body is required", or a 408 after 30 s).

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.dispose();
});

const TOO_LARGE = `{"error":41301,"message":"Request body is larger than ${DEFAULTS.bodyLimitBytes} bytes"}`;

it.each(['104857600', '2147483648', '3000000000', '4294967296', '20000000000'])(
  'answers Content-Length: %s with 413 and closes at once',
  async (length) => {
    const started = performance.now();
    const answer = await sendRawBytes(
      server.url,
      'POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        `Authorization: Bearer ${server.token}\r\nContent-Length: ${length}\r\n\r\n{"id": 1,`,
    );
    expect(performance.now() - started).toBeLessThan(2000);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(answer.endsWith(`\r\n\r\n${TOO_LARGE}`)).toBe(true);
  },
);

it('reads every body of the contract as a NewPlant, the flat record its limits are made for', () => {
  const bodies = Object.values(contract).flatMap((route) => (route.body ? [route.body] : []));
  expect(bodies.length).toBeGreaterThan(0);
  for (const body of bodies) expect(body).toBe(NewPlant);
});

/** A create whose body is sent in chunked framing, `size` bytes per chunk. */
function chunkedCreate(body: string, size: number): string {
  let chunks = '';
  for (let at = 0; at < body.length; at += size) {
    const piece = body.slice(at, at + size);
    chunks += `${piece.length.toString(16)}\r\n${piece}\r\n`;
  }
  return (
    'POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
    `Authorization: Bearer ${server.token}\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n` +
    `${chunks}0\r\n\r\n`
  );
}

it('serves a create whose body comes in 1-byte chunks (the proxy in front sends it whole)', async () => {
  const body = `{"id": 77, "name": "Fern"${' '.repeat(1_960)}}`;
  expect(await sendRawBytes(server.url, chunkedCreate(body, 1))).toMatch(/^HTTP\/1\.1 200 /);
  expect(readPlantRows(server.databaseFile).map((row) => row.id)).toEqual([77n]);
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
  const response = await fetch(`${server.url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': type },
    body: JSON.stringify({ id, name: 'Fern' }),
  });
  expect(response.status).toBe(read ? 200 : 415);
});
