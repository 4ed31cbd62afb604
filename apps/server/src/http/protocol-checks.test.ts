import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendRawBytes } from '../../test/support/raw-socket.ts';
import { readPlantRows } from '../../test/support/read-plant-rows.ts';
import { startTestServer, type TestServer } from '../../test/support/start-test-server.ts';

// Requests Node would answer itself without an Error body (no Host, an unknown Expect), over raw
// sockets.

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.dispose();
});

/** The status line and the body of a raw answer. */
function parts(answer: string): { status: string; body: string } {
  return {
    status: answer.split('\r\n')[0] ?? '',
    body: answer.slice(answer.indexOf('\r\n\r\n') + 4),
  };
}

const CLOSE = 'Connection: close\r\n';

describe('HTTP rules answered in the Error shape', () => {
  it('an HTTP/1.1 request without Host → 400 40004', async () => {
    const answer = await sendRawBytes(server.url, 'GET /healthz HTTP/1.1\r\n\r\n');
    expect(parts(answer)).toEqual({
      status: 'HTTP/1.1 400 Bad Request',
      body: '{"error":40004,"message":"HTTP/1.1 requests must have a Host header"}',
    });
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
  });

  it('an HTTP/1.0 request without Host is served', async () => {
    const answer = await sendRawBytes(server.url, 'GET /healthz HTTP/1.0\r\n\r\n');
    expect(parts(answer)).toEqual({ status: 'HTTP/1.1 200 OK', body: '{"status":"ok"}' });
  });

  it('Expect: foo → 417 41701', async () => {
    const answer = await sendRawBytes(
      server.url,
      `GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: foo\r\n${CLOSE}\r\n`,
    );
    expect(parts(answer)).toEqual({
      status: 'HTTP/1.1 417 Expectation Failed',
      body: '{"error":41701,"message":"The only expectation this server meets is Expect: 100-continue"}',
    });
  });

  it('Expect: 100-continue is met', async () => {
    const body = '{"id": 31, "name": "Continued"}';
    const answer = await sendRawBytes(
      server.url,
      `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.token}\r\n` +
        `Content-Type: application/json\r\nExpect: 100-continue\r\n${CLOSE}` +
        `Content-Length: ${body.length}\r\n\r\n${body}`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
    expect(parts(answer.slice(answer.indexOf('HTTP/1.1 200'))).body).toBe('{"name":"Continued"}');
  });
});

describe('lenient parsing, decided (docs/api.md, "What the server accepts")', () => {
  const create = (target: string, id: number, contentType = 'application/json') => {
    const body = `{"id": ${id}, "name": "Exact"}`;
    return (
      `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.token}\r\n` +
      `Content-Type: ${contentType}\r\nContent-Length: ${body.length}\r\n${CLOSE}\r\n${body}`
    );
  };

  it.each([
    ['/plants/', 'No operation at POST /plants/'],
    ['/PLANTS', 'No operation at POST /PLANTS'],
  ])('%s is not /plants: 404 40401, nothing stored', async (target, message) => {
    const answer = await sendRawBytes(server.url, create(target, 7001));
    expect(parts(answer)).toEqual({
      status: 'HTTP/1.1 404 Not Found',
      body: JSON.stringify({ error: 40401, message }),
    });
    expect(readPlantRows(server.databaseFile).some((row) => row.id === 7001n)).toBe(false);
  });

  it('the absolute form of /plants reaches the operation (RFC 9112 §3.2.2: servers accept it)', async () => {
    const answer = await sendRawBytes(server.url, create('http://127.0.0.1/plants', 7002));
    expect(parts(answer)).toEqual({ status: 'HTTP/1.1 200 OK', body: '{"name":"Exact"}' });
  });

  it('an HTTP/2.0 request line → 400 40004 (it was served as HTTP/1.1)', async () => {
    const answer = await sendRawBytes(server.url, 'GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n');
    expect(parts(answer)).toEqual({
      status: 'HTTP/1.1 400 Bad Request',
      body: '{"error":40004,"message":"HTTP/2.0 is not spoken here: send HTTP/1.1 (or HTTP/1.0) requests"}',
    });
  });

  it.each(['utf-16le', 'UTF-16', 'iso-8859-1'])(
    'application/json; charset=%s → 415 41501 (it was a 400), nothing stored',
    async (charset) => {
      const answer = await sendRawBytes(
        server.url,
        create('/plants', 7003, `application/json; charset=${charset}`),
      );
      expect(parts(answer).status).toBe('HTTP/1.1 415 Unsupported Media Type');
      expect(JSON.parse(parts(answer).body)).toMatchObject({ error: 41501 });
    },
  );

  it('application/json; charset=UTF-8 and utf8 are UTF-8', async () => {
    for (const [i, charset] of ['UTF-8', 'utf8'].entries()) {
      const answer = await sendRawBytes(
        server.url,
        create('/plants', 7010 + i, `application/json; charset=${charset}`),
      );
      expect(parts(answer).status).toBe('HTTP/1.1 200 OK');
    }
  });
});
