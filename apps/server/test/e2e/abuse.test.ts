import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManagedToken, revokeManagedToken } from '../../src/auth/manage-tokens.ts';
import { generateToken } from '../../src/auth/token-format.ts';
import { exchange, type RawReply } from '../security/exchange.ts';
import { OpenApiResponseValidator } from '../support/openapi-validator.ts';
import { openSocket } from '../support/raw-socket.ts';
import { type PlantRow, readPlantRows } from '../support/read-plant-rows.ts';
import { startTestServer, type TestServer } from '../support/start-test-server.ts';
import { type ClosableTokenStore, createSqliteTokenStore } from '../support/token-stores.ts';

// Abuse cases against the real server (in this process, real sockets on 127.0.0.1, a real
// SQLite file). Each checks the answer (Error shape, valid against the OpenAPI document) and
// that the abuse left nothing in the store. The body bombs (10 MB, gzip) run against a server
// process of their own, whose memory is measured: see body-bombs.test.ts.

const validator = new OpenApiResponseValidator();
const CHALLENGE = 'Bearer realm="plant-store"';
const INVALID_TOKEN = `${CHALLENGE}, error="invalid_token"`;

interface Reply extends RawReply {
  readonly json: { error?: number; message?: string; name?: string; tag?: string };
}

async function post(
  server: TestServer,
  body: string,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const reply = await exchange(server.url, {
    method: 'POST',
    path: '/plants',
    headers: { 'content-type': 'application/json', ...headers },
    body: Buffer.from(body),
  });
  expect(reply.headers['content-type']).toMatch(/^application\/json/);
  const json = JSON.parse(reply.text) as Reply['json'];
  validator.assertResponse('post', '/plants', reply.status, json);
  return { ...reply, json };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function rows(server: TestServer): PlantRow[] {
  return readPlantRows(server.databaseFile);
}

describe('credentials', () => {
  let server: TestServer;
  let tokens: ClosableTokenStore;
  let expired: string;
  let revoked: string;
  let active: string;

  beforeAll(async () => {
    server = await startTestServer();
    // Managed tokens in the server's own database, as `plant-store tokens …` makes them.
    tokens = createSqliteTokenStore({ filename: server.databaseFile });
    const hourAgo = new Date(Date.now() - 3_600_000);
    expired = (await createManagedToken(tokens, { name: 'expired', expires: '1m', now: hourAgo }))
      .token;
    revoked = (await createManagedToken(tokens, { name: 'revoked' })).token;
    await revokeManagedToken(tokens, 'revoked');
    active = (await createManagedToken(tokens, { name: 'active' })).token;
  });
  afterAll(async () => {
    await tokens?.close();
    await server?.dispose();
  });

  const plant = '{"id": 1, "name": "Intruder"}';
  const refused: [string, () => Record<string, string>, string][] = [
    ['no Authorization header', () => ({}), CHALLENGE],
    ['an empty Authorization header', () => ({ authorization: '' }), CHALLENGE],
    ['another scheme', () => ({ authorization: `Basic ${btoa('admin:admin')}` }), CHALLENGE],
    ['the scheme without a token', () => ({ authorization: 'Bearer' }), INVALID_TOKEN],
    ['a token with characters outside token68', () => bearer('tok en!'), INVALID_TOKEN],
    ['a token of 8,000 characters', () => bearer('A'.repeat(8000)), INVALID_TOKEN],
    ['an unknown token', () => bearer('an-unknown-token-0123456789'), INVALID_TOKEN],
    ['an unknown managed token (checksum right)', () => bearer(generateToken()), INVALID_TOKEN],
    [
      'a managed token with a typo (checksum wrong)',
      () => bearer(`${active.slice(0, 10)}${active[10] === 'x' ? 'y' : 'x'}${active.slice(11)}`),
      INVALID_TOKEN,
    ],
    ['a managed token cut short', () => bearer(active.slice(0, -1)), INVALID_TOKEN],
    ['an expired managed token', () => bearer(expired), INVALID_TOKEN],
    ['a revoked managed token', () => bearer(revoked), INVALID_TOKEN],
    ['the configured token twice', () => bearer(`${server.token} ${server.token}`), INVALID_TOKEN],
  ];
  it.each(refused)(
    '%s → 401 with the challenge, nothing stored',
    async (_label, headers, challenge) => {
      const reply = await post(server, plant, headers());
      expect(reply.status).toBe(401);
      expect(reply.json.error).toBe(40101);
      expect(reply.headers['www-authenticate']).toBe(challenge);
      expect(rows(server)).toEqual([]);
    },
  );

  it('refuses a managed token within a few seconds of its revocation, while it is in use', async () => {
    const { token } = await createManagedToken(tokens, { name: 'soon-revoked' });
    expect((await post(server, '{"id": 100, "name": "Before"}', bearer(token))).status).toBe(200);
    await revokeManagedToken(tokens, 'soon-revoked');
    let id = 101;
    await expect
      .poll(
        async () => (await post(server, `{"id": ${id++}, "name": "After"}`, bearer(token))).status,
        {
          timeout: 20_000,
          interval: 200,
        },
      )
      .toBe(401);
    // The registry trusts a valid token for TOKEN_CACHE_TTL_MS (its unit test holds the bound).
    const stored = rows(server).map((row) => row.name);
    expect(stored[0]).toBe('Before');
    // Whatever was answered 200 before the refusal is stored; nothing after it.
    expect(stored.every((name) => name === 'Before' || name === 'After')).toBe(true);
  }, 30_000);
});

describe('token guessing', () => {
  let server: TestServer;
  const BUDGET = 10;

  beforeAll(async () => {
    server = await startTestServer({
      rateLimit: { perSecond: 10_000, burst: 10_000, authFailuresPerMinute: BUDGET },
    });
  });
  afterAll(async () => {
    await server?.dispose();
  });

  it('is throttled: 100 concurrent well-formed guesses get at most the budget of 401s, then 429 with Retry-After', async () => {
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        post(server, `{"id": ${i}, "name": "Guess"}`, bearer(generateToken())),
      ),
    );
    const unauthorized = replies.filter((r) => r.status === 401);
    const limited = replies.filter((r) => r.status === 429);
    expect(unauthorized.length + limited.length).toBe(100);
    expect(unauthorized.length).toBeLessThanOrEqual(BUDGET);
    for (const reply of limited) {
      expect(reply.json.error).toBe(42901);
      const retryAfter = Number(reply.headers['retry-after']);
      expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    }
    // The guesser keeps getting 429, answered before any token lookup; a valid credential from
    // the same address is still served, and only its create is stored.
    expect(
      (await post(server, '{"id": 999, "name": "Guess"}', bearer(generateToken()))).status,
    ).toBe(429);
    const valid = await post(server, '{"id": 1000, "name": "Right"}', bearer(server.token));
    expect(valid.status).toBe(200);
    expect(rows(server)).toEqual([{ id: 1000n, name: 'Right' }]);
  });
});

describe('bodies', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.dispose();
  });

  it.each([
    ['{"__proto__": {"polluted": true}, "id": 1, "name": "a"}', /__proto__: unknown property/],
    [
      '{"constructor": {"prototype": {"polluted": true}}, "id": 1, "name": "a"}',
      /constructor: unknown property/,
    ],
    ['{"id": 1, "name": "a", "__proto__": null}', /__proto__: unknown property/],
    ['{"__proto__": {"id": 1, "name": "a"}}', /^id: .*name: .*__proto__: unknown property$/],
  ])('%s → 400 naming the key, no prototype polluted, nothing stored', async (body, message) => {
    const reply = await post(server, body, bearer(server.token));
    expect(reply.status).toBe(400);
    expect(reply.json.error).toBe(40001);
    expect(reply.json.message).toMatch(message);
    // The server runs in this process: a polluted prototype would show here.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(rows(server)).toEqual([]);
  });

  // The README's rule: a key repeated with a different value is malformed JSON (40002); the
  // exact same value repeated (however it is written) is harmless.
  it.each([
    '{"id": 10, "name": "a", "name": "b"}',
    '{"id": 10, "id": 11, "name": "a"}',
    '{"id": 10, "name": "a", "tag": "x", "tag": "y"}',
    '{"id": 10, "name": "a", "tag": "x", "tag": null}',
  ])('%s → 400 40002, nothing stored', async (body) => {
    const reply = await post(server, body, bearer(server.token));
    expect(reply.status).toBe(400);
    expect(reply.json.error).toBe(40002);
    expect(reply.json.message).toMatch(/^Request body repeats the key "(id|name|tag)"$/);
    expect(rows(server)).toEqual([]);
  });

  it('accepts a key repeated with the same value, however written', async () => {
    for (const body of [
      '{"id": 20, "name": "a", "name": "a"}',
      '{"id": 21, "id": 21.0, "id": 2.1e1, "name": "b"}',
      '{"id": 22, "name": "c", "name": "\\u0063", "tag": "t", "tag": "t"}',
    ]) {
      expect((await post(server, body, bearer(server.token))).status).toBe(200);
    }
    expect(rows(server)).toEqual([
      { id: 20n, name: 'a' },
      { id: 21n, name: 'b' },
      { id: 22n, name: 'c', tag: 't' },
    ]);
  });

  it('answers deeply nested JSON with 400 and keeps serving', async () => {
    for (const body of ['['.repeat(50_000), `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`]) {
      const reply = await post(server, body, bearer(server.token));
      expect(reply.status).toBe(400);
    }
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});

describe('slow clients', () => {
  let server: TestServer;

  beforeAll(async () => {
    // Short timeouts, so the test is quick: the defaults are measured in http-server.test.ts.
    server = await startTestServer({
      timeouts: {
        headersTimeout: 1_000,
        requestTimeout: 2_000,
        connectionsCheckingInterval: 250,
      },
    });
  });
  afterAll(async () => {
    await server?.dispose();
  });

  const open = () => openSocket(server.url);

  it('cuts 20 slowloris sockets and a trickled body while other clients are served; nothing stored', async () => {
    const sockets: Socket[] = [];
    const closed: Promise<void>[] = [];
    const received: string[] = [];
    for (let i = 0; i < 21; i++) {
      const socket = await open();
      sockets.push(socket);
      socket.on('error', () => undefined);
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1');
      });
      closed.push(
        new Promise((resolve) =>
          socket.once('close', () => {
            received.push(text);
            resolve();
          }),
        ),
      );
    }
    // 20 sockets trickle headers that never end; one sends its headers and trickles its body.
    const [slowBody, ...slowHeaders] = sockets as [Socket, ...Socket[]];
    for (const socket of slowHeaders)
      socket.write(`POST /plants HTTP/1.1\r\nHost: x\r\n${bearerLine(server)}`);
    slowBody.write(
      `POST /plants HTTP/1.1\r\nHost: x\r\n${bearerLine(server)}Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"id": 1, "name": "`,
    );
    let n = 0;
    const trickle = setInterval(() => {
      for (const socket of slowHeaders) if (!socket.destroyed) socket.write(`X-Slow-${n}: x\r\n`);
      if (!slowBody.destroyed) slowBody.write('a');
      n++;
    }, 100);
    try {
      // Meanwhile, a normal client is served.
      for (let id = 2; id <= 6; id++) {
        expect(
          (await post(server, `{"id": ${id}, "name": "Normal"}`, bearer(server.token))).status,
        ).toBe(200);
      }
      await Promise.all(closed);
    } finally {
      clearInterval(trickle);
      for (const socket of sockets) socket.destroy();
    }
    // Cut without an answer (a 400 would need the request to be parsed), or with a JSON 400.
    for (const text of received) expect(text === '' || /^HTTP\/1\.1 40[08] /.test(text)).toBe(true);
    expect(rows(server).map((row) => row.id)).toEqual([2n, 3n, 4n, 5n, 6n]);
  }, 30_000);
});

function bearerLine(server: TestServer): string {
  return `Authorization: Bearer ${server.token}\r\n`;
}
