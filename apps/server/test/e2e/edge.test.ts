import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { contract } from '@plant-store/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendCreate } from '../support/own-connection.ts';
import { cpuMicros, memoryMb } from '../support/process-stats.ts';
import { type ServerInTempFolder, spawnFloodableServer } from '../support/spawn-server.ts';

// The edge of a real server process (src/connection/) as an attacker without a credential
// tries it from 127.0.0.1 while a legitimate client works from 127.0.0.2 (all of 127/8 is
// loopback). The server's CPU and memory come from its /proc. The rate limits are off, so that
// the connection layer alone is under test. The figures live in docs/operations.md.

const ATTACKER = '127.0.0.1';
const CLIENT = '127.0.0.2';
const token = `edge-${randomBytes(16).toString('base64url')}`;
let spawned: ServerInTempFolder | undefined;
let url: string;
let port: number;
let pid: number;

beforeAll(async () => {
  spawned = await spawnFloodableServer('plant-store-edge-', token);
  url = spawned.url;
  port = Number(new URL(url).port);
  pid = spawned.server.child.pid ?? 0;
}, 30_000);
afterAll(() => spawned?.stop());

/** A connection from `from`; resolves once connected, or with undefined if refused or reset. */
function connectFrom(from: string): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress: from }, () => resolve(socket));
    socket.on('error', () => resolve(undefined));
  });
}

/** A create from the legitimate client's address: its status (0: failed) and milliseconds. */
async function createFrom(id: number): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const body = JSON.stringify({ id, name: 'Fern' });
  const status = await sendCreate(url, token, body, { localAddress: CLIENT }).then(
    (answer) => answer.status,
    () => 0,
  );
  return { status, ms: performance.now() - started };
}

function healthFrom(from: string): Promise<number> {
  return new Promise((resolve) => {
    request(
      { host: '127.0.0.1', port, localAddress: from, path: '/healthz', agent: false },
      (r) => {
        r.resume();
        resolve(r.statusCode ?? 0);
      },
    )
      .on('error', () => resolve(0))
      .end();
  });
}

describe('one address without a credential', () => {
  it('holding 2,000 stalled readers of the docs script: the other address is served (≥ 99 % of creates, each within 5 s) and /healthz answers', async () => {
    const crowd: Socket[] = [];
    try {
      for (let batch = 0; batch < 20; batch += 1) {
        const opened = await Promise.all(Array.from({ length: 100 }, () => connectFrom(ATTACKER)));
        for (const socket of opened) {
          if (socket === undefined) continue;
          socket.pause(); // never reads
          socket.write(`GET ${contract.getDocsScript.path} HTTP/1.1\r\nHost: x\r\n\r\n`);
          crowd.push(socket);
        }
      }
      await delay(500); // the answers fill the buffers
      const held = crowd.filter((socket) => !socket.destroyed).length;
      const results: Array<{ status: number; ms: number }> = [];
      for (let round = 0; round < 25; round += 1) {
        results.push(...(await Promise.all([1, 2, 3, 4].map((i) => createFrom(round * 4 + i)))));
      }
      expect(await healthFrom(CLIENT)).toBe(200);
      const served = results.filter((result) => result.status === 200);
      expect(
        served.length,
        JSON.stringify(results.filter((r) => r.status !== 200)),
      ).toBeGreaterThanOrEqual(99);
      expect(Math.max(...served.map((result) => result.ms))).toBeLessThan(5_000);
      // The attacker's share: at most half the cap (900) is held, the rest closed at once.
      expect(held).toBeLessThanOrEqual(450 + 10);
    } finally {
      for (const socket of crowd) socket.destroy();
    }
  });

  it('streaming a refused POST in 1-byte chunks for up to 8 s costs the server at most 100 ms of CPU', async () => {
    const socket = await connectFrom(ATTACKER);
    if (socket === undefined) throw new Error('could not connect');
    socket.setNoDelay(true);
    await delay(500); // the earlier test's connections are closed and collected
    let answer = '';
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
    });
    const before = cpuMicros(pid);
    socket.write(
      'POST /plants HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
    );
    const until = performance.now() + 8_000;
    let writes = 0;
    while (!socket.destroyed && performance.now() < until) {
      const written = await new Promise<boolean>((resolve) =>
        socket.write('1\r\nx\r\n', (error) => resolve(!error)),
      );
      if (!written) break;
      writes += 1;
      // Reads between writes, as any HTTP client does: else the answer is never read.
      await new Promise((resolve) => setImmediate(resolve));
    }
    socket.destroy();
    await delay(100);
    const cpuMs = (cpuMicros(pid) - before) / 1000;
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    expect(cpuMs, `${writes} chunks written`).toBeLessThanOrEqual(100);
  });

  it('pipelining 20 × 8,000 GETs it never reads: the server grows by at most 200 MB, and a create from the other address is answered within 2 s', async () => {
    const baseline = memoryMb(pid, 'VmRSS');
    const sockets = (
      await Promise.all(Array.from({ length: 20 }, () => connectFrom(ATTACKER)))
    ).filter((socket): socket is Socket => socket !== undefined);
    try {
      const pipelined = 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(8_000);
      for (const socket of sockets) {
        socket.pause();
        socket.write(pipelined);
      }
      await delay(300);
      const { status, ms } = await createFrom(1_000);
      expect(status).toBe(200);
      expect(ms).toBeLessThan(2_000);
      expect(memoryMb(pid, 'VmRSS') - baseline).toBeLessThan(200);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });
});
