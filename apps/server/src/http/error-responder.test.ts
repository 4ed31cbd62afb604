import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendRawBytes } from '../../test/support/raw-socket.ts';
import { startTestServer, type TestServer } from '../../test/support/start-test-server.ts';
import { ApiError } from './api-error.ts';
import { errorBodyJson, MAX_ERROR_BODY_BYTES } from './error-responder.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.dispose();
});

/**
 * Sends headers announcing a large body but only its first bytes; resolves with what came back
 * once the server closed the connection (the client never does, nor sends the rest).
 */
function sendPartialBody(headers: string): Promise<string> {
  return sendRawBytes(
    server.url,
    `POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n${headers}\r\n{"id": 1,`,
  );
}

it('answers a request refused before its body was read, then closes the connection', async () => {
  // Closed by the server right after the answer: waiting for the announced 1 MB would hold the
  // connection until the 30 s request timeout, past this test's 10 s.
  const response = await sendPartialBody('Content-Type: application/json\r\n');
  expect(response).toMatch(/^HTTP\/1\.1 401 /);
  expect(response).toMatch(/\r\nconnection: close\r\n/i);
  expect(response).toContain('{"error":40101,');
});

it('keeps the connection open after an error whose body was read in full', async () => {
  const body = '{"id": "x", "name": "Fern"}';
  const response = await fetch(`${server.url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    body,
  });
  expect(response.status).toBe(400);
  expect(response.headers.get('connection')).not.toBe('close');
});

describe('errorBodyJson', () => {
  it.each([
    ['ASCII', 'x'.repeat(100_000)],
    ['characters JSON escapes (6 bytes each)', '\u0001'.repeat(100_000)],
    ['three-byte characters', '€'.repeat(100_000)],
    ['surrogate pairs', '🌿'.repeat(100_000)],
  ])('keeps a body of %s within 1 KB, well-formed', (_label, message) => {
    const json = errorBodyJson(new ApiError('validationFailed', message));
    expect(Buffer.byteLength(json)).toBeLessThanOrEqual(MAX_ERROR_BODY_BYTES);
    const body = JSON.parse(json) as { error: number; message: string };
    expect(body.error).toBe(40001);
    expect(body.message.endsWith('…')).toBe(true);
    expect(body.message.isWellFormed()).toBe(true);
    expect(Buffer.byteLength(json)).toBeGreaterThan(MAX_ERROR_BODY_BYTES - 16);
  });

  it('leaves a short message as it is', () => {
    expect(errorBodyJson(new ApiError('conflict', 'short'))).toBe(
      '{"error":40901,"message":"short"}',
    );
  });
});
