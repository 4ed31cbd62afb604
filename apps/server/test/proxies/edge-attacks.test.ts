import { Agent, type IncomingHttpHeaders, request } from 'node:http';
import { contract } from '@plant-store/schema';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DOCS_PATHS } from '../../src/docs/docs-assets.ts';
import { createTestSchema, type TestSchema } from '../support/postgres.ts';
import { createOnItsOwn, EDGE_ATTACKS, paddedCreate } from './edge-attacks.ts';
import {
  AUTH_FAILURES_PER_MINUTE,
  CREATE_DEADLINE_MS,
  CREATE_EVERY_MS,
  type EdgeStage,
  startEdgeStage,
} from './edge-stage.ts';
import { createThroughProxy } from './rolling-restart.ts';

// Issue 41, item 2: deploy/nginx.conf and deploy/haproxy.cfg as shipped (ports and paths
// changed only) are the edge. Each attack of edge-attacks.ts runs for 8 s from 127.0.0.1 or
// from many addresses 127.1.x.y while a client on 127.0.0.2 creates plants through the same
// proxy: at least 99 % of its creates are answered 200 within 5 s (a slower one counts as
// failed), and an attack with a refused or unwanted body costs the two instances at most
// 150 ms of CPU above what they spend under the creates alone over the same time (from
// /proc/<pid>/stat, against a control window of the creates just before: through the shipped
// nginx before issue 41, 80–100 ms; through haproxy then, 1.7–4.1 s; directly, 8.4–9.1 s).

const ATTACK_MS = 8_000;
/** The creates alone before an attack with an unwanted body, to compare its CPU with (ms). */
const CONTROL_MS = 4_000;
/** Above the instances' idle CPU over an attack with an unwanted body (ms). */
const UNWANTED_BODY_CPU_MS = 150;

describe.each(['nginx', 'haproxy'] as const)('behind %s as shipped', (proxy) => {
  let schema: TestSchema | undefined;
  let stage: EdgeStage;
  beforeAll(async () => {
    schema = await createTestSchema(inject('postgresAdminUrl'), `edge_${proxy}`);
    stage = await startEdgeStage(proxy, schema.url);
    console.log(
      `${proxy} | the instances' idle CPU ${stage.idleCpuMsPerSecond.toFixed(1)} ms/s, ${stage.cpuMsPerCreate.toFixed(2)} ms a create`,
    );
  }, 60_000);
  afterAll(async () => {
    await stage?.stop();
    await schema?.drop();
  });

  it.each(EDGE_ATTACKS)('$name: creates from 127.0.0.2 still answered', async (attack) => {
    const { target, token } = stage;
    // The bounded ones are compared with the creates alone just before, at a quarter of the
    // pace: the creates' own CPU (1–2 ms each at this pace on a shared machine, and it drifts
    // from one window to the next) is then small beside the bound.
    const measured = await stage.measure(
      () => attack.run({ ...target, token }, ATTACK_MS),
      attack.unwantedBody ? { controlMs: CONTROL_MS, createEveryMs: 4 * CREATE_EVERY_MS } : {},
    );
    const { creates, result } = measured;
    console.log(
      `${proxy} | ${attack.name}: creates ${creates.ok}/${creates.sent} 200 within ${CREATE_DEADLINE_MS} ms (others ${JSON.stringify(creates.errors)}, worst ${creates.worstMs} ms); backend CPU ${measured.backendCpuMs} ms, ${measured.backendCpuAboveIdleMs} ms above idle over ${measured.windowMs} ms; attack ${JSON.stringify(result)}`,
    );
    // 20 a second (5 with a control window) when answered at once; fewer when slowed (each
    // waits for its answer).
    expect(creates.sent).toBeGreaterThan(attack.unwantedBody ? 25 : 50);
    expect(creates.ok / creates.sent, stage.log().slice(-4_000)).toBeGreaterThanOrEqual(0.99);
    if (attack.unwantedBody) {
      expect(measured.backendCpuAboveIdleMs).toBeLessThanOrEqual(UNWANTED_BODY_CPU_MS);
    }
    if (attack.name.startsWith('2,500 stalled readers')) {
      // The per-address connection limit (100 in both files) holds: no more answers in
      // progress for the one address, and the proxy refuses the rest at once.
      expect(result.answers['200'] ?? 0).toBeLessThanOrEqual(100);
    }
  });

  it('a valid 60 KB create in 1-byte chunks is answered 200 at most 2× the backend CPU of the same body sent whole', async () => {
    const target = { ...stage.target, token: stage.token };
    const cpuOf = async (framing: 'whole' | '1-byte chunks', ids: readonly number[]) => {
      const before = stage.backendCpuMicros();
      for (const id of ids) {
        expect(await createOnItsOwn(target, paddedCreate(id, 60_000), framing), framing).toBe(200);
      }
      return (stage.backendCpuMicros() - before) / 1000;
    };
    // Interleaved rounds, so that a change of the machine's pace meets both alike.
    let whole = 0;
    let chunked = 0;
    for (let round = 0; round < 5; round++) {
      const ids = (offset: number) =>
        Array.from({ length: 10 }, (_, i) => 1e9 + round * 100 + offset + i);
      whole += await cpuOf('whole', ids(0));
      chunked += await cpuOf('1-byte chunks', ids(50));
    }
    console.log(
      `${proxy} | 50 creates of 60 KB: backend CPU whole ${whole} ms, in 1-byte chunks ${chunked} ms (ratio ${(chunked / whole).toFixed(2)})`,
    );
    expect(chunked).toBeLessThanOrEqual(2 * whole);
  });

  it('the refused-credential limit keys on the client from X-Forwarded-For, not on the proxy', async () => {
    const url = `http://${stage.target.host}:${stage.target.port}`;
    const agent = new Agent({ keepAlive: true });
    const from = async (localAddress: string, token: string, id: number) => {
      const outcome = await createThroughProxy(url, agent, token, id, {
        deadlineMs: CREATE_DEADLINE_MS,
        localAddress,
      });
      return 'status' in outcome ? outcome.status : outcome.error;
    };
    try {
      const refused: Array<number | string> = [];
      for (let i = 0; i < 3 * AUTH_FAILURES_PER_MINUTE; i++) {
        refused.push(await from('127.0.0.3', 'not-a-credential', 2e9 + i));
      }
      // 127.0.0.3 is over its limit; another address, through the same proxy, is not.
      expect(refused.slice(0, AUTH_FAILURES_PER_MINUTE)).toEqual(
        Array(AUTH_FAILURES_PER_MINUTE).fill(401),
      );
      expect(refused.at(-1)).toBe(429);
      expect(await from('127.0.0.4', 'not-a-credential', 3e9)).toBe(401);
      expect(await from('127.0.0.2', stage.token, 3e9 + 1)).toBe(200);
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
      const direct = await rawGet(stage.instanceUrl, path, headers);
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
