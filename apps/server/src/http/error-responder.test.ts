import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { ApiError } from '../api-error.ts';
import { errorBodyJson, MAX_ERROR_BODY_BYTES } from './error-responder.ts';

let server: TestApp;
beforeAll(async () => {
  server = await createTestApp();
});
afterAll(async () => {
  await server.dispose();
});

it('answers a request refused before its body was read, then closes the connection', async () => {
  // Waiting for the announced 1 MB would hold the connection until the 30 s request timeout.
  const response = await server.inject({
    method: 'POST',
    url: '/plants',
    headers: { 'content-type': 'application/json', 'content-length': '1000000' },
    payload: '{"id": 1,',
  });
  expect(response.statusCode).toBe(401);
  expect(response.headers.connection).toBe('close');
  expect(response.json()).toMatchObject({ error: 40101 });
});

it('keeps the connection open after an error whose body was read in full', async () => {
  const body = '{"id": "x", "name": "Fern"}';
  const response = await server.fetch('/plants', {
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
