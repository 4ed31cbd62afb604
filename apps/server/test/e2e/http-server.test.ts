import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_PATHS } from '../../src/docs/docs-assets.ts';
import { openSocket, sendRawBytes } from '../support/raw-socket.ts';
import { readPlantRows } from '../support/read-plant-rows.ts';
import { startTestServer, type TestServer } from '../support/start-test-server.ts';

// What only a socket shows of connection/http-server.ts: the progress timeout, the `clientError`
// hook and CONNECT against raw sockets on 127.0.0.1 (test/e2e/http-timeouts.test.ts watches the
// other timeouts fire); a create pipelined with garbage; a request line that is not HTTP.

describe('the progress timeout', () => {
  it('closes a connection whose client stopped reading the docs script, and spares one that reads', async () => {
    const server = await startTestServer({ timeouts: { timeout: 1_000 } });
    try {
      const get = `GET ${DOCS_PATHS.script} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
      const stalled = await openSocket(server.url);
      stalled.pause(); // never reads: once the kernel's buffers are full, no progress
      stalled.write(get.repeat(12)); // 52 MB of answers: more than the buffers hold
      const reader = await openSocket(server.url);
      let read = 0;
      reader.on('data', (chunk: Buffer) => {
        read += chunk.length;
      });
      reader.write(get);
      // The server's side of the stalled connection closes (its client, paused, does not look).
      const open = () =>
        new Promise<number>((resolve) =>
          server.server.getConnections((_, count) => resolve(count)),
        );
      await expect.poll(open, { timeout: 20_000, interval: 50 }).toBe(1);
      expect(read).toBeGreaterThan(4_000_000); // the whole script, 4.3 MB: read to its end
      expect(reader.destroyed).toBe(false);
      reader.destroy();
      stalled.destroy();
    } finally {
      await server.dispose();
    }
  });
});

// A request Node's parser cannot read: the `clientError` hook answers in the Error shape and
// closes. Raw sockets: no HTTP client sends these.
describe('a request Node cannot parse', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.dispose();
  });
  const post = (framing: string, body: string) =>
    `POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.token}\r\n` +
    `Content-Type: application/json\r\n${framing}\r\n\r\n${body}`;

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
      const answer = await sendRawBytes(server.url, post(framing, body));
      expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(answer).toMatch(/\r\nConnection: close\r\n/i);
      expect(answer).toMatch(/\r\n\r\n\{"error":40004,"message":"Malformed HTTP request"\}$/);
      expect(readPlantRows(server.databaseFile)).toEqual([]);
    },
  );

  it('a request line that is not HTTP: 400 in the Error shape', async () => {
    const answer = await sendRawBytes(server.url, 'HELLO\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toMatch(/\r\n\r\n\{"error":40004,"message":"Malformed HTTP request"\}$/);
  });

  it('headers over 16 KiB: 400 in the Error shape saying so', async () => {
    const answer = await sendRawBytes(
      server.url,
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toMatch(/"message":"Request headers are too large"\}$/);
  });

  it('CONNECT: 405 in the Error shape, its body bounded to 1 KB whatever the target', async () => {
    const target = `${'a'.repeat(12_000)}:443`;
    const answer = await sendRawBytes(server.url, `CONNECT ${target} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(1024);
    expect(JSON.parse(body)).toMatchObject({ error: 40501 });
    expect(JSON.parse(body).message).toMatch(/^CONNECT is not allowed: this server is not a proxy/);
  });

  it('a create pipelined with garbage: its own 200 (it was stored), then refuses the garbage and closes', async () => {
    const body = '{"id": 4242, "name": "Pipelined"}';
    const create =
      `POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.token}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const response = await sendRawBytes(server.url, `${create}NOT HTTP AT ALL\r\n\r\n`);
    expect(response).toMatch(/^HTTP\/1\.1 200 /);
    expect(response).toContain('{"name":"Pipelined"}');
    expect(readPlantRows(server.databaseFile).map((row) => row.id)).toEqual([4242n]);
    // The second answer starts right after the first one's body (no line break between).
    const statusLines = response.match(/HTTP\/1\.1 \d{3}/g);
    expect(statusLines).toEqual(['HTTP/1.1 200', 'HTTP/1.1 400']);
    expect(response.slice(response.lastIndexOf('HTTP/1.1 400'))).toContain('"error":40004');
  });

  it('a request line in no HTTP version: a JSON 400', async () => {
    const answer = await sendRawBytes(server.url, 'BREW /plants HTCPCP\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as unknown;
    expect(body).toEqual({ error: 40004, message: 'Malformed HTTP request' });
  });
});
