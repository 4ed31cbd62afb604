import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendRawBytes } from '../support/raw-socket.ts';
import { readPlantRows } from '../support/read-plant-rows.ts';
import { startTestServer, type TestServer } from '../support/start-test-server.ts';

// What Node's parser decides before the app sees a request (http/protocol-checks.ts is unit
// tested beside it): the request line's version and target form, a missing Host, Expect:
// 100-continue's interim answer, over raw sockets.

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

describe('the request line and headers, over a socket', () => {
  it('an HTTP/1.1 request without Host → 400 40004', async () => {
    const answer = await sendRawBytes(server.url, 'GET /healthz HTTP/1.1\r\n\r\n');
    expect(parts(answer)).toEqual({
      status: 'HTTP/1.1 400 Bad Request',
      body: '{"error":40004,"message":"HTTP/1.1 requests must have a Host header"}',
    });
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
  });

  it('an Expect other than 100-continue → 417 41701, answered by the app, nothing stored', async () => {
    const answer = await sendRawBytes(
      server.url,
      'POST /plants HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Type: application/json\r\n' +
        `Authorization: Bearer ${server.token}\r\nContent-Length: 22\r\n${CLOSE}\r\n` +
        '{"id":4170,"name":"X"}',
    );
    expect(parts(answer)).toEqual({
      status: 'HTTP/1.1 417 Expectation Failed',
      body: '{"error":41701,"message":"The only expectation this server meets is Expect: 100-continue"}',
    });
    expect(answer).toMatch(/\r\nX-Request-Id: /i);
    expect(readPlantRows(server.databaseFile).map((row) => row.id)).not.toContain(4170n);
  });

  it('an HTTP/1.0 request without Host is served', async () => {
    const answer = await sendRawBytes(server.url, 'GET /healthz HTTP/1.0\r\n\r\n');
    expect(parts(answer)).toEqual({ status: 'HTTP/1.1 200 OK', body: '{"status":"ok"}' });
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

  it('an HTTP/2.0 request line → 400 40004 (it was served as HTTP/1.1)', async () => {
    const answer = await sendRawBytes(server.url, 'GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n');
    expect(parts(answer)).toEqual({
      status: 'HTTP/1.1 400 Bad Request',
      body: '{"error":40004,"message":"HTTP/2.0 is not spoken here: send HTTP/1.1 (or HTTP/1.0) requests"}',
    });
  });

  it('the absolute form of /plants reaches the operation (RFC 9112 §3.2.2: servers accept it)', async () => {
    const body = '{"id": 7002, "name": "Exact"}';
    const answer = await sendRawBytes(
      server.url,
      `POST http://127.0.0.1/plants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n${CLOSE}\r\n${body}`,
    );
    expect(parts(answer)).toEqual({ status: 'HTTP/1.1 200 OK', body: '{"name":"Exact"}' });
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
    expect(readPlantRows(server.databaseFile).map((row) => row.id)).toContain(77n);
  });
});
