import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenApiResponseValidator } from '../../test/support/openapi-validator.ts';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';

// CORS, the app injected: off by default, an allow-list when CORS_ORIGINS is set.

const ALLOWED = 'https://app.example.com';
const validator = new OpenApiResponseValidator();
let server: TestApp;
let plain: TestApp;

beforeAll(async () => {
  [server, plain] = await Promise.all([
    createTestApp({ corsOrigins: [ALLOWED, 'http://localhost:5173'] }),
    createTestApp(),
  ]);
});
afterAll(async () => {
  await Promise.all([server.dispose(), plain.dispose()]);
});

/** A valid create from a page at `origin`, with the server's token. */
function createFrom(target: TestApp, origin: string): Promise<Response> {
  return target.fetch('/plants', {
    method: 'POST',
    headers: {
      origin,
      authorization: `Bearer ${target.token}`,
      'content-type': 'application/json',
    },
    body: '{"id": 1, "name": "Fern"}',
  });
}

function preflight(
  target: TestApp,
  origin: string,
  method = 'POST',
  path = '/plants',
): Promise<Response> {
  return target.fetch(path, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization,content-type',
    },
  });
}

async function expectNoCors(response: Response, status: number, path = '/plants') {
  expect(response.status).toBe(status);
  for (const [name] of response.headers) expect(name).not.toMatch(/^access-control-/);
  validator.assertResponse('options', path, status, await response.json());
}

describe('CORS with an allow-list', () => {
  it('answers a preflight from an allowed origin', async () => {
    const response = await preflight(server, ALLOWED);
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(response.headers.get('access-control-allow-methods')).toContain('POST');
    expect(response.headers.get('access-control-allow-headers')).toBe(
      'Authorization,Content-Type,X-Request-Id',
    );
    expect(response.headers.get('access-control-max-age')).toBe('600');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(response.headers.get('vary')).toContain('Origin');
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('lets the allowed origin read successes and errors, with the useful headers exposed', async () => {
    const created = await createFrom(server, ALLOWED);
    expect(created.status).toBe(200);
    expect(created.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(created.headers.get('access-control-expose-headers')).toBe(
      'X-Request-Id,Retry-After,WWW-Authenticate,Allow,X-RateLimit-Limit,X-RateLimit-Remaining,X-RateLimit-Reset',
    );
    await created.arrayBuffer();

    const refused = await server.fetch('/plants', {
      method: 'POST',
      headers: { origin: 'http://localhost:5173', 'content-type': 'application/json' },
      body: '{"id": 2, "name": "Fern"}',
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="plant-store"');
    validator.assertResponse('post', '/plants', 401, await refused.json());
  });

  it('ignores other origins: no CORS headers, a preflight is a 405', async () => {
    await expectNoCors(await preflight(server, 'https://evil.example.com'), 405);
    await expectNoCors(await preflight(server, `${ALLOWED}.evil.example.com`), 405);
    await expectNoCors(await preflight(server, 'null'), 405);
    const simple = await server.fetch('/healthz', {
      headers: { origin: 'https://evil.example.com' },
    });
    expect(simple.status).toBe(200);
    expect(simple.headers.get('access-control-allow-origin')).toBeNull();
    await simple.arrayBuffer();
  });

  it('answers preflights only for methods and paths that exist', async () => {
    await expectNoCors(await preflight(server, ALLOWED, 'DELETE'), 405);
    await expectNoCors(await preflight(server, ALLOWED, 'POST', '/nowhere'), 404, '/nowhere');
  });

  it('leaves OPTIONS without a preflight request method to the router (405)', async () => {
    const response = await server.fetch('/plants', {
      method: 'OPTIONS',
      headers: { origin: ALLOWED },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    validator.assertResponse('options', '/plants', 405, await response.json());
  });
});

describe('CORS by default', () => {
  it('is off: no preflight answer and no CORS headers for any origin', async () => {
    await expectNoCors(await preflight(plain, ALLOWED), 405);
    const response = await createFrom(plain, ALLOWED);
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    await response.arrayBuffer();
  });
});
