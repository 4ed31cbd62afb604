import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestApp,
  injectUnmetExpectation,
  type TestApp,
} from '../../test/support/test-app.ts';
import { ApiError } from '../api-error.ts';
import { checkProtocol, markUnmetExpectation } from './protocol-checks.ts';

// checkProtocol on requests as Node's parser hands them over, then the app's answers to them
// (injected); test/e2e/protocol.test.ts sends the raw request lines over a socket.

const request = (version: string, headers: IncomingMessage['headers'] = {}) =>
  ({
    httpVersion: version,
    httpVersionMajor: Number(version.split('.')[0]),
    headers,
  }) as IncomingMessage;

const refusal = (check: () => void) => {
  try {
    check();
  } catch (error) {
    return error instanceof ApiError ? { kind: error.kind, message: error.message } : error;
  }
  return undefined;
};

describe('checkProtocol', () => {
  it('passes an HTTP/1.1 request with a Host, and an HTTP/1.0 one without', () => {
    expect(refusal(() => checkProtocol(request('1.1', { host: 'x' })))).toBeUndefined();
    expect(refusal(() => checkProtocol(request('1.0')))).toBeUndefined();
  });

  it('refuses an HTTP/1.1 request without Host as malformed', () => {
    expect(refusal(() => checkProtocol(request('1.1')))).toEqual({
      kind: 'malformedRequest',
      message: 'HTTP/1.1 requests must have a Host header',
    });
  });

  it('refuses another major version as malformed, naming it', () => {
    expect(refusal(() => checkProtocol(request('2.0', { host: 'x' })))).toEqual({
      kind: 'malformedRequest',
      message: 'HTTP/2.0 is not spoken here: send HTTP/1.1 (or HTTP/1.0) requests',
    });
  });

  it('refuses a request whose Expect Node found unmet, and no other', () => {
    const met = request('1.1', { host: 'x', expect: '100-continue' });
    expect(refusal(() => checkProtocol(met))).toBe(undefined);
    const unmet = request('1.1', { host: 'x', expect: 'foo' });
    markUnmetExpectation(unmet);
    expect(refusal(() => checkProtocol(unmet))).toEqual({
      kind: 'expectationFailed',
      message: 'The only expectation this server meets is Expect: 100-continue',
    });
  });
});

describe('the answers', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(async () => {
    await app.dispose();
  });

  const create = (path: string, id: number, contentType = 'application/json') =>
    app.inject({
      method: 'POST',
      url: path,
      headers: { authorization: `Bearer ${app.token}`, 'content-type': contentType },
      payload: `{"id": ${id}, "name": "Exact"}`,
    });

  it('Expect: foo → 417 41701', async () => {
    const answer = await injectUnmetExpectation(app, {
      url: '/healthz',
      headers: { expect: 'foo' },
    });
    expect(answer.statusCode).toBe(417);
    expect(answer.body).toBe(
      '{"error":41701,"message":"The only expectation this server meets is Expect: 100-continue"}',
    );
  });

  it.each([
    ['/plants/', 'No operation at POST /plants/'],
    ['/PLANTS', 'No operation at POST /PLANTS'],
  ])('%s is not /plants: 404 40401, nothing stored', async (target, message) => {
    const answer = await create(target, 7001);
    expect(answer.statusCode).toBe(404);
    expect(answer.body).toBe(JSON.stringify({ error: 40401, message }));
    expect(app.rows().some((row) => row.id === 7001n)).toBe(false);
  });

  it.each(['utf-16le', 'UTF-16', 'iso-8859-1'])(
    'application/json; charset=%s → 415 41501, nothing stored',
    async (charset) => {
      const answer = await create('/plants', 7003, `application/json; charset=${charset}`);
      expect(answer.statusCode).toBe(415);
      expect(answer.json()).toMatchObject({ error: 41501 });
      expect(app.rows().some((row) => row.id === 7003n)).toBe(false);
    },
  );

  it('application/json; charset=UTF-8 and utf8 are UTF-8', async () => {
    for (const [i, charset] of ['UTF-8', 'utf8'].entries()) {
      const answer = await create('/plants', 7010 + i, `application/json; charset=${charset}`);
      expect(answer.statusCode).toBe(200);
    }
    expect(app.rows().map((row) => row.id)).toEqual([7010n, 7011n]);
  });
});
