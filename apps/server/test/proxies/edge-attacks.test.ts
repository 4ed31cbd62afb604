import { Agent, type IncomingHttpHeaders, request } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { contract } from '@plant-store/schema';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DOCS_PATHS } from '../../src/docs/docs-assets.ts';
import { createTestSchema, type TestSchema } from '../support/postgres.ts';
import { openSocket, receivedUntilClose } from '../support/raw-socket.ts';
import {
  createOnItsOwn,
  EDGE_ATTACKS,
  paddedCreate,
  UNWANTED_BODY_MARK,
  unfinishedRequests,
} from './edge-attacks.ts';
import {
  AUTH_FAILURES_PER_MINUTE,
  CLIENT_ADDRESS,
  CREATES_PER_MEASURE,
  type CreatesSummary,
  type EdgeStage,
  startEdgeStage,
} from './edge-stage.ts';
import { FORGED_FORMS } from './forged-addresses.ts';
import { createThroughProxy } from './rolling-restart.ts';

// deploy/nginx.conf and deploy/haproxy.cfg as shipped (ports changed only) are the edge. Each
// attack of edge-attacks.ts runs for 8 s from 127.0.0.1 or from many addresses 127.1.x.y while
// clients on 127.0.0.2 send a fixed number of creates through the same proxy: every one is
// answered 200 (however slowly: a hang is the test timeout's), and no byte of a request with
// an unwanted body reaches an instance (recorded at the instances' side of the proxy).

const ATTACK_MS = 8_000;
/** Above the proxy's resident memory before the unfinished requests (MiB). */
const UNFINISHED_MEMORY_MB = 100;

/** Every create the legitimate clients sent during the attack was answered 200. */
function expectEveryCreateServed(creates: CreatesSummary): void {
  expect(creates, JSON.stringify(creates)).toEqual({
    ok: CREATES_PER_MEASURE,
    sent: CREATES_PER_MEASURE,
    errors: {},
  });
}

describe.each(['nginx', 'haproxy'] as const)('behind %s as shipped', (proxy) => {
  let schema: TestSchema | undefined;
  let stage: EdgeStage;
  beforeAll(async () => {
    schema = await createTestSchema(inject('postgresAdminUrl'), `edge_${proxy}`);
    stage = await startEdgeStage(proxy, schema.url);
  }, 60_000);
  afterAll(async () => {
    await stage?.stop();
    await schema?.drop();
  });

  it.each(EDGE_ATTACKS)('$name: creates from 127.0.0.2 still answered', async (attack) => {
    const { target, token } = stage;
    const { creates, result } = await stage.measure(() =>
      attack.run({ ...target, token }, ATTACK_MS),
    );
    expectEveryCreateServed(creates);
    if (attack.unwantedBody) {
      const mark = UNWANTED_BODY_MARK.toLowerCase();
      const reached = stage.received().filter((bytes) => bytes.toLowerCase().includes(mark));
      expect(reached.map((bytes) => bytes.slice(0, 300))).toEqual([]);
    }
    if (attack.name.startsWith('2,500 stalled readers')) {
      // The per-address connection limit (100 in both files) holds: no more answers in
      // progress for the one address, and the proxy refuses the rest at once.
      expect(result.answers['200'] ?? 0).toBeLessThanOrEqual(100);
    }
  });

  it('3 addresses × 100 connections × 100 unfinished 60 KB creates: HTTP/2 refused, the proxy within 100 MB', async () => {
    const idleMb = stage.proxyResidentMb();
    let peakMb = idleMb;
    const sampler = setInterval(() => {
      peakMb = Math.max(peakMb, stage.proxyResidentMb());
    }, 100);
    try {
      const { creates, result } = await stage.measure(() =>
        unfinishedRequests({ ...stage.target, token: stage.token }, ATTACK_MS),
      );
      expect(result.http2Held).toBe(0);
      expect(result.http2Refused).toBe(300);
      expect(result.http1.connected).toBeGreaterThanOrEqual(300);
      expectEveryCreateServed(creates);
    } finally {
      clearInterval(sampler);
    }
    expect(peakMb - idleMb).toBeLessThan(UNFINISHED_MEMORY_MB);
  });

  it('a valid 60 KB create in 1-byte chunks reaches an instance in one piece, answered 200', async () => {
    const target = { ...stage.target, token: stage.token };
    stage.resetReceived();
    const ids = [4e9, 4e9 + 1, 4e9 + 2];
    for (const id of ids) {
      expect(await createOnItsOwn(target, paddedCreate(id, 60_000), '1-byte chunks')).toBe(200);
    }
    const received = stage.received().join('');
    for (const id of ids) {
      const body = paddedCreate(id, 60_000);
      const at = received.indexOf(body);
      expect(at, `create ${id} whole at an instance`).toBeGreaterThan(0);
      const head = received.slice(received.lastIndexOf('POST /plants ', at), at);
      // nginx sends it with a Content-Length; haproxy keeps the chunked framing, its body
      // buffered whole into one chunk.
      const framing =
        /^content-length: 60000\r$/im.test(head) && head.endsWith('\r\n\r\n')
          ? 'Content-Length'
          : /^transfer-encoding: chunked\r$/im.test(head) &&
              /\r\n\r\nea60\r\n$/i.test(head) &&
              received.startsWith('\r\n0\r\n\r\n', at + body.length)
            ? 'one chunk'
            : 'in pieces';
      expect(framing, head).toBe(proxy === 'nginx' ? 'Content-Length' : 'one chunk');
    }
  });

  it('the refused-credential limit keys on the connection, whatever address the client names', async () => {
    /** A create with a refused token from `localAddress`, with header lines `forged`. */
    const guess = async (localAddress: string, forged = '') => {
      const socket = await openSocket(`http://${stage.target.host}:${stage.target.port}`, {
        localAddress,
      });
      const answer = receivedUntilClose(socket);
      const body = '{"id":1,"name":"Guess"}';
      socket.write(
        `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer not-a-credential-0123456789\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n${forged}\r\n${body}`,
      );
      return Number(/^HTTP\/1\.1 (\d{3}) /.exec(await answer)?.[1]);
    };
    // From the proxy's own address and from another, every forged form naming 127.0.0.9.
    for (const attacker of ['127.0.0.1', '127.0.0.5']) {
      const statuses: number[] = [];
      for (let i = 0; i < 2 * FORGED_FORMS.length; i++) {
        const form = FORGED_FORMS[i % FORGED_FORMS.length] ?? (() => '');
        statuses.push(await guess(attacker, form('127.0.0.9')));
      }
      expect(statuses, attacker).toEqual([
        ...Array(AUTH_FAILURES_PER_MINUTE).fill(401),
        ...Array(2 * FORGED_FORMS.length - AUTH_FAILURES_PER_MINUTE).fill(429),
      ]);
    }
    // The address they named has its budget whole, and the legitimate client is served.
    expect(await guess('127.0.0.9')).toBe(401);
    const agent = new Agent({ keepAlive: true });
    try {
      const url = `http://${stage.target.host}:${stage.target.port}`;
      const outcome = await createThroughProxy(url, agent, stage.token, 3e9, {
        localAddress: CLIENT_ADDRESS,
      });
      expect(outcome).toMatchObject({ status: 200 });
    } finally {
      agent.destroy();
    }
  });

  it('a neighbour on 127.0.0.2 sending 10 refused tokens a second: its clients still served', async () => {
    const url = `http://${stage.target.host}:${stage.target.port}`;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const { creates, result } = await stage.measure(async () => {
        const statuses: Array<number | string> = [];
        const until = performance.now() + ATTACK_MS;
        for (let id = 5e9; performance.now() < until; id++) {
          const outcome = await createThroughProxy(url, agent, 'not-a-credential-0123456789', id, {
            localAddress: CLIENT_ADDRESS,
          });
          statuses.push('status' in outcome ? outcome.status : outcome.error);
          await delay(100);
        }
        return statuses;
      });
      expect(result.slice(0, AUTH_FAILURES_PER_MINUTE)).toEqual(
        Array(AUTH_FAILURES_PER_MINUTE).fill(401),
      );
      expect(result.slice(AUTH_FAILURES_PER_MINUTE)).toEqual(
        Array(result.length - AUTH_FAILURES_PER_MINUTE).fill(429),
      );
      expectEveryCreateServed(creates);
    } finally {
      agent.destroy();
    }
  });

  it.each([
    [contract.getOpenApiDocument.path, 'identity'],
    [DOCS_PATHS.page, 'gzip'],
    [DOCS_PATHS.script, 'br'],
  ])(
    '%s (%s) through the proxy: what an instance sends, and 304 for its ETag',
    async (path, encoding) => {
      // Asked twice (the second from the proxy's cache, with nginx), then revalidated.
      const url = `http://${stage.target.host}:${stage.target.port}${path}`;
      const headers = {
        'accept-encoding': encoding === 'identity' ? 'identity' : `${encoding}, identity`,
      };
      // The instance asked with the Host the proxy passes on: the document names that origin.
      const direct = await rawGet(stage.instanceUrl, path, {
        ...headers,
        host: `${stage.target.host}:${stage.target.port}`,
      });
      for (let i = 0; i < 2; i++) {
        const through = await rawGet(url, path, headers);
        expect(through.status).toBe(200);
        expect(through.headers['content-encoding']).toBe(direct.headers['content-encoding']);
        expect(through.headers['content-type']).toBe(direct.headers['content-type']);
        expect(through.headers.etag).toBe(direct.headers.etag);
        expect(
          through.body.equals(direct.body),
          `${path} body, ${i === 0 ? 'first' : 'again'}`,
        ).toBe(true);
      }
      const etag = direct.headers.etag ?? '';
      expect((await rawGet(url, path, { ...headers, 'if-none-match': etag })).status).toBe(304);
    },
  );
});

/** GET `path` from `base` (no decoding): its status, headers and body bytes. */
function rawGet(
  base: string,
  path: string,
  headers: Readonly<Record<string, string>>,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    request({ host: hostname, port: Number(port), path, headers, agent: false }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () =>
        resolve({
          status: incoming.statusCode ?? 0,
          headers: incoming.headers,
          body: Buffer.concat(chunks),
        }),
      );
      incoming.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}
