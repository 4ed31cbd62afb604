import { PassThrough } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/support/start-test-server.ts';
import { createLogger, wantsPrettyLogs } from './logger.ts';
import { type RequestLogEntry, requestLogWriter } from './request-log.ts';

// The request log and X-Request-Id, over real HTTP: log lines are captured through a pino
// destination stream on the real server.

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
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({
    logger: createLogger('info', { destination: capture.stream }),
  });
});
afterAll(async () => {
  await server.dispose();
});

/** The request line logged for `requestId` (log lines are written when the response is done). */
async function requestLine(requestId: string): Promise<LogLine> {
  const find = () => capture.lines().find((entry) => entry.requestId === requestId);
  await expect.poll(find, { message: `a log line for request ${requestId}` }).toBeDefined();
  return find() as LogLine;
}

async function post(body: string, headers: Record<string, string>): Promise<Response> {
  const response = await fetch(`${server.url}/plants`, {
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
    expect(line.durationMs).toBeGreaterThan(0);
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

    const unknown = await fetch(`${server.url}/nowhere?x=1`, {
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
    const kept = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': longest } });
    expect(kept.headers.get('x-request-id')).toBe(longest);

    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    for (const bad of ['a'.repeat(129), 'semi;colon', 'quote"d', '<script>', 'tab\there']) {
      const replaced = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': bad } });
      expect(replaced.headers.get('x-request-id'), bad).toMatch(uuid);
    }
  });

  it('is on every response, and two requests without one get different ids', async () => {
    const responses = await Promise.all([
      fetch(`${server.url}/healthz`),
      fetch(`${server.url}/healthz`),
      fetch(`${server.url}/nowhere`),
      fetch(`${server.url}/plants`),
      post('{}', { authorization: `Bearer ${server.token}` }),
      post('{"id": 5, "name": "Fern"}', {}),
    ]);
    expect(responses.map((r) => r.status)).toEqual([200, 200, 404, 405, 400, 401]);
    const ids = responses.map((r) => r.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('is the id of the log line, so a caller can quote it to an operator', async () => {
    const response = await fetch(`${server.url}/healthz`);
    const id = response.headers.get('x-request-id') ?? '';
    expect(await requestLine(id)).toMatchObject({ route: '/healthz', status: 200 });
  });
});

describe('pretty logs', () => {
  it('are for a terminal outside production only', () => {
    expect(wantsPrettyLogs(false, true)).toBe(true);
    expect(wantsPrettyLogs(true, true)).toBe(false);
    expect(wantsPrettyLogs(false, false)).toBe(false);
    expect(wantsPrettyLogs(false, undefined)).toBe(false);
  });

  it('write readable lines instead of JSON', async () => {
    const logged = captureStream();
    const logger = createLogger('info', { pretty: true, destination: logged.stream });
    logger.info({ route: '/plants', status: 200 }, 'request');
    await new Promise((resolve) => setImmediate(resolve));
    const text = logged.text();
    expect(text).toMatch(/INFO.*request/);
    expect(text).toContain('route: "/plants"');
    expect(() => JSON.parse(text.split('\n')[0] ?? '')).toThrow();
  });
});

describe('the request line written directly', () => {
  // The same logger settings as createLogger, with a fixed time so lines compare byte for byte.
  const fixedTime = () => ',"time":1700000000000';
  function loggers(extra: pino.LoggerOptions = {}) {
    const direct = captureStream();
    const viaPino = captureStream();
    const settings = {
      level: 'info',
      base: { service: 'plant-store' },
      redact: ['req.headers.authorization', 'headers.authorization', 'authorization', 'token'],
      timestamp: fixedTime,
      ...extra,
    };
    return {
      direct,
      viaPino,
      directLogger: pino(settings, direct.stream),
      pinoLogger: pino(settings, viaPino.stream),
    };
  }
  const entries: RequestLogEntry[] = [
    {
      requestId: 'a1',
      method: 'POST',
      route: '/plants',
      status: 200,
      durationMs: 1.2345,
      consumer: 'env#1',
    },
    { requestId: 'b2', method: 'GET', route: null, status: 404, durationMs: 0, consumer: null },
    {
      requestId: 'c3',
      method: 'POST',
      route: '/plants',
      status: 401,
      durationMs: Number.NaN,
      consumer: 'quote " back \\ tab \t é 🌱 \ud800',
    },
  ];

  it('is byte-identical to what pino writes for logger.info(entry, "request")', async () => {
    const { direct, viaPino, directLogger, pinoLogger } = loggers();
    const write = requestLogWriter(directLogger);
    for (const entry of entries) {
      write(entry);
      pinoLogger.info({ ...entry }, 'request');
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(direct.text()).not.toBe('');
    expect(direct.text()).toBe(viaPino.text());
  });

  it('carries a child logger’s bindings, and writes nothing below the level', async () => {
    const { direct, viaPino, directLogger, pinoLogger } = loggers();
    const write = requestLogWriter(directLogger.child({ worker: 2 }));
    write(entries[0] as RequestLogEntry);
    pinoLogger.child({ worker: 2 }).info({ ...entries[0] }, 'request');
    const quiet = requestLogWriter(directLogger.child({}, { level: 'warn' }));
    quiet(entries[1] as RequestLogEntry);
    await new Promise((resolve) => setImmediate(resolve));
    expect(direct.text()).toContain('"worker":2');
    expect(direct.text()).toBe(viaPino.text());
  });

  it('goes through pino for a logger it cannot reproduce (a log formatter)', async () => {
    const formatters = { log: (object: Record<string, unknown>) => ({ ...object, extra: true }) };
    const { direct, viaPino, directLogger, pinoLogger } = loggers({ formatters });
    requestLogWriter(directLogger)(entries[0] as RequestLogEntry);
    pinoLogger.info({ ...entries[0] }, 'request');
    await new Promise((resolve) => setImmediate(resolve));
    expect(direct.text()).toContain('"extra":true');
    expect(direct.text()).toBe(viaPino.text());
  });
});
