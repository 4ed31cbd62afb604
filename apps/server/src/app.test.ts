import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenApiResponseValidator } from '../test/support/openapi-validator.ts';
import type { PlantRow } from '../test/support/read-plant-rows.ts';
import { createTestApp, type TestApp } from '../test/support/test-app.ts';
import { DEFAULTS } from './config.ts';

// The whole app in process (createApp over a real SQLite file), requests injected without a
// socket. Every response body is checked against the generated OpenAPI document with Ajv.

const validator = new OpenApiResponseValidator();
let server: TestApp;

beforeAll(async () => {
  server = await createTestApp();
});
afterAll(async () => {
  await server.dispose();
});

interface Reply {
  status: number;
  headers: Headers;
  body: { error: number; message: string } & Record<string, unknown>;
}

async function request(
  method: string,
  path: string,
  init: { body?: string | Uint8Array; headers?: Record<string, string>; auth?: boolean } = {},
): Promise<Reply> {
  const headers: Record<string, string> = {
    ...(init.auth === false ? {} : { authorization: `Bearer ${server.token}` }),
    ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    ...init.headers,
  };
  const response = await server.fetch(path, {
    method,
    headers,
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  const text = await response.text();
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = JSON.parse(text) as Reply['body'];
  validator.assertResponse(method, path, response.status, body, response.headers);
  return { status: response.status, headers: response.headers, body };
}

const post = (body: string | undefined, init: Parameters<typeof request>[2] = {}) =>
  request('POST', '/plants', { ...init, ...(body === undefined ? {} : { body }) });

function rows(): PlantRow[] {
  return server.rows();
}

function storedRow(id: bigint) {
  return rows().find((row) => row.id === id);
}

let nextId = 1_000n;
const freshId = () => nextId++;

describe('POST /plants success', () => {
  it('creates a plant and answers 200 with the Plant (no id)', async () => {
    const id = freshId();
    const reply = await post(`{"id": ${id}, "name": "Monstera", "tag": "indoor"}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ name: 'Monstera', tag: 'indoor' });
    expect(storedRow(id)).toEqual({ id, name: 'Monstera', tag: 'indoor' });
  });

  it('gives every success the same full Content-Type (worked out once per route)', async () => {
    const first = await post(`{"id": ${freshId()}, "name": "Pilea"}`);
    const second = await post(`{"id": ${freshId()}, "name": "Hoya"}`);
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(second.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it('omits tag when none was given', async () => {
    const id = freshId();
    const reply = await post(`{"id": ${id}, "name": "Fern"}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ name: 'Fern' });
    expect(storedRow(id)).toEqual({ id, name: 'Fern' });
  });

  it('sends the hardening headers and echoes a safe X-Request-Id', async () => {
    const reply = await post(`{"id": ${freshId()}, "name": "Ivy"}`, {
      headers: { 'x-request-id': 'trace-abc.123' },
    });
    expect(reply.headers.get('x-request-id')).toBe('trace-abc.123');
    expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
    expect(reply.headers.get('cache-control')).toBe('no-store');
    expect(reply.headers.get('x-powered-by')).toBeNull();
    const unsafe = await post(`{"id": ${freshId()}, "name": "Ivy"}`, {
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    expect(unsafe.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('accepts application/*+json, a charset parameter, and parameters that do not parse', async () => {
    const types = [
      'application/json; charset=utf-8',
      'application/merge-patch+json',
      'application/json;',
      'Application/JSON; not-a-parameter',
    ];
    for (const type of types) {
      const reply = await post(`{"id": ${freshId()}, "name": "Aloe"}`, {
        headers: { 'content-type': type },
      });
      expect(reply.status).toBe(200);
    }
  });
});

describe('int64 ids are exact', () => {
  const edges = [2n ** 63n - 1n, -(2n ** 63n - 1n), -(2n ** 63n), 2n ** 53n + 1n, 2n ** 53n - 1n];
  for (const id of edges) {
    it(`stores ${id} exactly`, async () => {
      const reply = await post(`{"id": ${id}, "name": "edge ${id}"}`);
      expect(reply.status).toBe(200);
      expect(storedRow(id)?.id).toBe(id);
    });
  }

  it('takes an integral value written as 1.0 or 1e3 as that integer', async () => {
    expect((await post('{"id": 77000000.0, "name": "a"}')).status).toBe(200);
    expect(storedRow(77_000_000n)?.name).toBe('a');
    expect((await post('{"id": 7.7e7, "name": "a"}')).status).toBe(200);
  });

  const outOfRange = ['9223372036854775808', '-9223372036854775809', '1e400', '1.5', '"12"'];
  for (const id of outOfRange) {
    it(`refuses ${id} with 400 and stores nothing`, async () => {
      const before = rows().length;
      const reply = await post(`{"id": ${id}, "name": "x"}`);
      expect(reply.status).toBe(400);
      expect(reply.body.error).toBe(40001);
      expect(reply.body.message).toMatch(/^id: must be an integer from -9223372036854775808/);
      expect(rows().length).toBe(before);
    });
  }
});

describe('bad bodies are 400 in the Error shape and store nothing', () => {
  const cases: [string, string | undefined, number, RegExp][] = [
    ['no body', undefined, 40003, /required/],
    ['an empty body', '', 40003, /required/],
    ['invalid JSON', '{"id": 1, "name": ', 40002, /not valid JSON/],
    ['a JSON array', '[1, 2]', 40001, /^\(body\): must be an object \(got an array\)$/],
    ['a JSON string', '"plant"', 40001, /^\(body\): must be an object \(got a string\)$/],
    ['JSON null', 'null', 40001, /^\(body\): must be an object \(got null\)$/],
    ['missing id and name', '{}', 40001, /^id: is required; name: is required$/],
    [
      'a wrongly typed name',
      '{"id": 5, "name": 5}',
      40001,
      /^name: must be a string \(got a number\)$/,
    ],
    [
      'tag: null',
      '{"id": 5, "name": "a", "tag": null}',
      40001,
      /^tag: must be a string, or left out \(got null\)$/,
    ],
    ['an empty name', '{"id": 5, "name": ""}', 40001, /^name: must not be empty/],
    ['an unknown property', '{"id": 5, "name": "a", "wheels": 4}', 40001, /wheels: unknown/],
    [
      'a __proto__ key',
      '{"id": 5, "name": "a", "__proto__": {"x": 1}}',
      40001,
      /__proto__: unknown/,
    ],
    [
      'a constructor key',
      '{"id": 5, "name": "a", "constructor": 1}',
      40001,
      /constructor: unknown/,
    ],
    ['a repeated key', '{"id": 5, "name": "a", "name": "b"}', 40002, /repeats the key "name"/],
    [
      'valid JSON nested 5,000 deep',
      `{"id": 5, "name": "a", "tag": ${'['.repeat(5000)}${']'.repeat(5000)}}`,
      40005,
      /^Request body nests arrays and objects deeper than 64 levels \(at character 93\)$/,
    ],
    ['60,000 [', '['.repeat(60_000), 40005, /deeper than 64 levels \(at character 64\)$/],
    ['a lone surrogate', '{"id": 5, "name": "\\ud800"}', 40001, /^name: must be well-formed/],
    ['a control character', '{"id": 5, "name": "a\\u0007"}', 40001, /control characters/],
    ['a name over 200 chars', `{"id": 5, "name": "${'x'.repeat(201)}"}`, 40001, /at most 200/],
  ];
  for (const [label, body, code, message] of cases) {
    it(`${label} → 400 ${code}`, async () => {
      const before = rows().length;
      const reply = await post(body);
      expect(reply.status).toBe(400);
      expect(reply.body.error).toBe(code);
      expect(reply.body.message).toMatch(message);
      expect(reply.body.message).not.toMatch(/at \w+ \(|node_modules|SyntaxError/);
      expect(rows().length).toBe(before);
    });
  }

  it('lists every problem with its field path', async () => {
    const reply = await post('{"id": "1", "name": 2, "tag": null, "extra": true}');
    expect(reply.status).toBe(400);
    const message = reply.body.message;
    for (const field of ['id:', 'name:', 'tag:', 'extra: unknown property']) {
      expect(message).toContain(field);
    }
  });

  it('does not turn the __proto__ key into a prototype', async () => {
    const reply = await post('{"__proto__": {"id": 5, "name": "polluted"}}');
    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(/^id: .*name: .*__proto__: unknown property$/);
  });
});

describe('media type and size', () => {
  it('answers 415 for a non-JSON content type', async () => {
    const reply = await post('id=1&name=x', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(reply.status).toBe(415);
    expect(reply.body.error).toBe(41501);
  });

  it('answers 415 for a body with no content type', async () => {
    const response = await server.fetch('/plants', {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}` },
      body: new Uint8Array(Buffer.from('{"id": 1, "name": "x"}')),
    });
    expect(response.status).toBe(415);
    expect(await response.json()).toMatchObject({ error: 41501 });
  });

  it('answers 413 above the default limit (BODY_LIMIT)', async () => {
    const big = `{"id": ${freshId()}, "name": "${'x'.repeat(DEFAULTS.bodyLimitBytes)}"}`;
    const reply = await post(big);
    expect(reply.status).toBe(413);
    expect(reply.body).toEqual({
      error: 41301,
      message: `Request body is larger than ${DEFAULTS.bodyLimitBytes} bytes`,
    });
  });
});

describe('authentication', () => {
  const body = '{"id": 424242, "name": "x"}';

  it('answers 401 with a Bearer challenge when the credential is missing', async () => {
    const reply = await post(body, { auth: false });
    expect(reply.status).toBe(401);
    expect(reply.body.error).toBe(40101);
    expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="plant-store"');
  });

  it('answers 401 invalid_token for a wrong or malformed token', async () => {
    for (const authorization of ['Bearer wrong-token-0123456789', 'Bearer', 'Bearer a b']) {
      const reply = await post(body, { auth: false, headers: { authorization } });
      expect(reply.status).toBe(401);
      expect(reply.headers.get('www-authenticate')).toBe(
        'Bearer realm="plant-store", error="invalid_token"',
      );
    }
  });

  it('treats another scheme as no credential', async () => {
    const reply = await post(body, { auth: false, headers: { authorization: 'Basic dTpw' } });
    expect(reply.status).toBe(401);
    expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="plant-store"');
  });

  it('accepts the scheme in any case', async () => {
    const reply = await post(`{"id": ${freshId()}, "name": "x"}`, {
      auth: false,
      headers: { authorization: `bEARER ${server.token}` },
    });
    expect(reply.status).toBe(200);
  });

  it('checks the credential before reading the body', async () => {
    const reply = await post('not json at all', { auth: false });
    expect(reply.status).toBe(401);
    const oversized = await post('x'.repeat(200 * 1024), { auth: false });
    expect(oversized.status).toBe(401);
    expect(storedRow(424242n)).toBeUndefined();
  });
});

describe('duplicates', () => {
  it('answers an identical replay with the same 200, and a different body with 409', async () => {
    const id = freshId();
    const first = await post(`{"id": ${id}, "name": "Cactus", "tag": "desert"}`);
    const replay = await post(`{"tag": "desert", "name": "Cactus", "id": ${id}}`);
    expect(first.status).toBe(200);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual(first.body);
    const conflict = await post(`{"id": ${id}, "name": "Cactus"}`);
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toBe(40901);
    expect(storedRow(id)).toEqual({ id, name: 'Cactus', tag: 'desert' });
  });

  it('gives one 200 and nineteen 409 to twenty concurrent creates of one id', async () => {
    const id = freshId();
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(`{"id": ${id}, "name": "racer ${i}"}`)),
    );
    const statuses = replies.map((reply) => reply.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    const winner = replies.find((reply) => reply.status === 200);
    expect(rows().filter((row) => row.id === id)).toEqual([{ id, name: winner?.body.name }]);
  });
});

describe('routing and operations endpoints', () => {
  it('answers 404 in the Error shape for an unknown path', async () => {
    const reply = await request('GET', '/nope');
    expect(reply.status).toBe(404);
    expect(reply.body.error).toBe(40401);
  });

  it('answers 405 with Allow for another method on /plants', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      const reply = await request(method, '/plants');
      expect(reply.status).toBe(405);
      expect(reply.body.error).toBe(40501);
      expect(reply.headers.get('allow')).toBe('POST');
    }
  });

  it('serves /healthz, /readyz and /openapi.json without a credential', async () => {
    expect((await request('GET', '/healthz', { auth: false })).body).toEqual({ status: 'ok' });
    expect((await request('GET', '/readyz', { auth: false })).body).toEqual({ status: 'ok' });
    const doc = await request('GET', '/openapi.json', { auth: false });
    expect(doc.status).toBe(200);
    // The document, naming the origin it was asked at as its server (docs/served-document.ts).
    const named = { url: server.origin, description: expect.any(String) };
    expect(doc.body).toEqual({ ...validator.document, servers: [named] });
  });
});
