import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendCreate } from '../../test/support/own-connection.ts';
import { startTestServer, type TestServer } from '../../test/support/start-test-server.ts';

// Requests without a credential, limited per client address over real HTTP: one address
// (127.0.0.1) floods /healthz, another (127.0.0.2: all of 127.0.0.0/8 is loopback) is served.

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    rateLimit: {
      perSecond: 1000,
      burst: 1000,
      authFailuresPerMinute: 30,
      anonymous: { perSecond: 20, burst: 100 },
    },
  });
});
afterAll(() => server.dispose());

/** GET `path` on a connection of its own from `localAddress`: status, Retry-After, body. */
function get(path: string, localAddress: string) {
  return new Promise<{ status: number; retryAfter?: string; body: string }>((resolve, reject) => {
    const outgoing = request(`${server.url}${path}`, { localAddress, agent: false }, (answer) => {
      let body = '';
      answer.setEncoding('utf8');
      answer.on('data', (chunk: string) => {
        body += chunk;
      });
      answer.on('end', () => {
        const retryAfter = answer.headers['retry-after'];
        resolve({ status: answer.statusCode ?? 0, body, ...(retryAfter ? { retryAfter } : {}) });
      });
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('requests without a credential, per client address', () => {
  it('refuses a flood from one address with 429 in the Error shape, and serves another address', async () => {
    const flood = await Promise.all(
      Array.from({ length: 160 }, (_, i) =>
        get(i % 4 === 0 ? '/nowhere' : '/healthz', '127.0.0.1'),
      ),
    );
    const statuses = flood.map((answer) => answer.status);
    const refused = flood.filter((answer) => answer.status === 429);
    // The burst of 100 (and the rate's 20 in the second it took) is served, the rest refused.
    expect(statuses.filter((status) => status !== 429).length).toBeGreaterThanOrEqual(100);
    expect(refused.length).toBeGreaterThanOrEqual(20);
    const [first] = refused;
    expect(JSON.parse(first?.body ?? '{}')).toEqual({
      error: 42901,
      message: expect.stringMatching(/^Too many requests from this address; retry after 1 second/),
    });
    expect(Number(first?.retryAfter)).toBeGreaterThanOrEqual(1);
    // Another address is served meanwhile: probes, the reference, and a credential's create.
    expect((await get('/healthz', '127.0.0.2')).status).toBe(200);
    expect((await get('/readyz', '127.0.0.2')).status).toBe(200);
    expect((await get('/openapi.json', '127.0.0.2')).status).toBe(200);
    // A create carries a credential: not counted as anonymous, from the flooding address too.
    const created = await sendCreate(server.url, server.token, '{"id":1,"name":"Fern"}', {
      localAddress: '127.0.0.1',
    });
    expect(created.status).toBe(200);
  });
});
