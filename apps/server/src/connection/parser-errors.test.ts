import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendRawBytes } from '../../test/support/raw-socket.ts';
import { readPlantRows } from '../../test/support/read-plant-rows.ts';
import { startTestServer, type TestServer } from '../../test/support/start-test-server.ts';

// A request whose body breaks HTTP's framing after its handler started reading it: the parser
// fails, and the handler would wait for a body that never comes (until the 30 s request
// timeout). Raw sockets: no HTTP client sends these.

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.dispose();
});

function authenticatedPost(framing: string, body: string): string {
  return (
    `POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.token}\r\n` +
    `Content-Type: application/json\r\n${framing}\r\n\r\n${body}`
  );
}

describe('a body whose framing breaks while its handler reads it', () => {
  it.each([
    ['a chunk line that is not hexadecimal', 'Transfer-Encoding: chunked', 'zz\r\n'],
    [
      'a valid chunk, then a broken one',
      'Transfer-Encoding: chunked',
      '1e\r\n{"id": 9, "name": "Half fern"}\r\nzz\r\n',
    ],
    ['an unknown transfer coding', 'Transfer-Encoding: xchunked', '5\r\nhello\r\n0\r\n\r\n'],
  ])(
    '%s: 400 40004 in the Error shape at once, then the connection closes',
    async (_, framing, body) => {
      // The test's 10 s budget is well under the 30 s request timeout that used to end it.
      const answer = await sendRawBytes(server.url, authenticatedPost(framing, body));
      expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(answer).toMatch(/\r\nConnection: close\r\n/i);
      expect(answer).toMatch(/\r\nX-Request-Id: \S+\r\n/i);
      expect(answer).toMatch(/\r\n\r\n\{"error":40004,"message":"Malformed HTTP request"\}$/);
      expect(readPlantRows(server.databaseFile)).toEqual([]);
    },
  );
});

describe('CONNECT', () => {
  it('gets 405 in the Error shape, its body bounded to 1 KB whatever the target (12,000 characters here)', async () => {
    const target = `${'a'.repeat(12_000)}:443`;
    const answer = await sendRawBytes(server.url, `CONNECT ${target} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(1024);
    expect(JSON.parse(body)).toMatchObject({ error: 40501 });
    expect(JSON.parse(body).message).toMatch(/^CONNECT is not allowed: this server is not a proxy/);
  });
});
