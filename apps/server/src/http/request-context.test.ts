import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { createLogger } from '../observability/logger.ts';

// The request context, the app injected: the request log (captured through a pino destination
// stream) and X-Request-Id.

type LogLine = Record<string, unknown>;

function captureStream(): { stream: PassThrough; text(): string; lines(): LogLine[] } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  return {
    stream,
    text: () => text,
    lines: () =>
      text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as LogLine),
  };
}

const capture = captureStream();
let server: TestApp;

beforeAll(async () => {
  server = await createTestApp({
    logger: createLogger('info', { destination: capture.stream }),
  });
});
afterAll(async () => {
  await server.dispose();
});

/** The request line logged for `requestId` (written before the answer is sent, one turn ago). */
async function requestLine(requestId: string): Promise<LogLine> {
  await new Promise((resolve) => setImmediate(resolve));
  const line = capture.lines().find((entry) => entry.requestId === requestId);
  expect(line, `a log line for request ${requestId}`).toBeDefined();
  return line as LogLine;
}

async function post(body: string, headers: Record<string, string>): Promise<Response> {
  const response = await server.fetch('/plants', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  await response.arrayBuffer();
  return response;
}

describe('request log', () => {
  it('writes one line per request: method, route, status, duration, request id, consumer', async () => {
    const response = await post('{"id": 1, "name": "Secret-Body-Fern"}', {
      authorization: `Bearer ${server.token}`,
      'x-request-id': 'log-test-1',
    });
    expect(response.status).toBe(200);
    const line = await requestLine('log-test-1');
    expect(line).toMatchObject({
      level: 30,
      msg: 'request',
      service: 'plant-store',
      method: 'POST',
      route: '/plants',
      status: 200,
      consumer: 'env#1',
      requestId: 'log-test-1',
    });
    expect(typeof line.durationMs).toBe('number');
    expect(line.durationMs).toBeGreaterThanOrEqual(0);
    expect(capture.lines().filter((entry) => entry.requestId === 'log-test-1')).toHaveLength(1);
  });

  it('logs refused and unknown requests too, with no consumer', async () => {
    const refused = await post('{"id": 2, "name": "Fern"}', {
      authorization: 'Bearer not-a-real-token-0123456789',
      'x-request-id': 'log-test-401',
    });
    expect(refused.status).toBe(401);
    expect(await requestLine('log-test-401')).toMatchObject({
      method: 'POST',
      route: '/plants',
      status: 401,
      consumer: null,
    });

    const unknown = await server.fetch('/nowhere?x=1', {
      headers: { 'x-request-id': 'log-test-404' },
    });
    expect(unknown.status).toBe(404);
    expect(await requestLine('log-test-404')).toMatchObject({
      method: 'GET',
      route: null,
      status: 404,
    });
  });

  it('never writes the token, the Authorization header or the body', async () => {
    await post('{"id": 3, "name": "Body-Marker-Ivy", "tag": "Body-Marker-Tag"}', {
      authorization: `Bearer ${server.token}`,
      'x-request-id': 'log-test-secret',
    });
    await post('{"id": 4, "name": "Body-Marker-Ivy"}', {
      authorization: 'Bearer guessed-token-Guess-Marker-000',
      'x-request-id': 'log-test-secret-2',
    });
    await requestLine('log-test-secret');
    await requestLine('log-test-secret-2');
    const text = capture.text();
    expect(text).not.toContain(server.token);
    expect(text).not.toContain('Guess-Marker');
    expect(text).not.toContain('Body-Marker');
    expect(text).not.toContain('Secret-Body-Fern');
    expect(text.toLowerCase()).not.toContain('authorization');
    expect(text.toLowerCase()).not.toContain('bearer');
  });
});

describe('X-Request-Id', () => {
  it('is kept up to 128 safe characters, else replaced by a new UUID', async () => {
    const longest = 'a'.repeat(128);
    const kept = await server.fetch('/healthz', { headers: { 'x-request-id': longest } });
    expect(kept.headers.get('x-request-id')).toBe(longest);

    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    for (const bad of ['a'.repeat(129), 'semi;colon', 'quote"d', '<script>', 'tab\there']) {
      const replaced = await server.fetch('/healthz', { headers: { 'x-request-id': bad } });
      expect(replaced.headers.get('x-request-id'), bad).toMatch(uuid);
    }
  });

  it('is on every response, and two requests without one get different ids', async () => {
    const responses = await Promise.all([
      server.fetch('/healthz'),
      server.fetch('/healthz'),
      server.fetch('/nowhere'),
      server.fetch('/plants'),
      post('{}', { authorization: `Bearer ${server.token}` }),
      post('{"id": 5, "name": "Fern"}', {}),
    ]);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 404, 405, 400, 401]);
    const ids = responses.map((r) => r.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('is the id of the log line, so a caller can quote it to an operator', async () => {
    const response = await server.fetch('/healthz');
    const id = response.headers.get('x-request-id') ?? '';
    expect(await requestLine(id)).toMatchObject({ route: '/healthz', status: 200 });
  });
});

describe('the connection after an Error answer', () => {
  it('closes after a request refused before its body was read', async () => {
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

  it('stays open after an error whose body was read in full', async () => {
    const response = await post('{"id": "x", "name": "Fern"}', {
      authorization: `Bearer ${server.token}`,
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('connection')).not.toBe('close');
  });
});
