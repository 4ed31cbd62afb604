import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSocket } from '../support/raw-socket.ts';
import { type SpawnedServer, spawnServer } from '../support/spawn-server.ts';

// A server process under a lowered descriptor limit (`ulimit -n 128`) and 300 connections that
// send nothing, from three addresses. MAX_CONNECTIONS is Node's `server.maxConnections`: over
// it Node closes each new connection at once, so the descriptors never run out (no EMFILE, no
// 500), the cap is logged once, and once the crowd goes every client is served.
// With a cap above the descriptor limit (the default 900 here) the accepts fail instead, which
// libuv absorbs (it closes such a connection at once); the process serves again once the crowd
// goes. While the crowd holds the cap or the descriptors, new
// clients are refused: the server alone has no share per address (docs/deployment.md, "The
// server alone"; the shipped proxies hold such crowds).

const CROWD = 300;
const CROWD_ADDRESSES = ['127.0.0.1', '127.0.0.3', '127.0.0.4'];

const folder = mkdtempSync(join(tmpdir(), 'plant-store-cap-'));
const token = `cap-${randomBytes(16).toString('base64url')}`;
afterAll(() => rmSync(folder, { recursive: true, force: true }));

async function createsFromNewClients(url: string, count: number, firstId: number) {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ id: firstId + i, name: `New client ${i}` }),
    }).catch(() => undefined); // closed at once, over the cap
    statuses.push(response?.status ?? 0);
  }
  return statuses;
}

describe.each([
  ['MAX_CONNECTIONS=64', { MAX_CONNECTIONS: '64' }],
  ['the default MAX_CONNECTIONS (900)', {}],
])('under ulimit -n 128, %s', (name, env) => {
  let server: SpawnedServer | undefined;
  const crowd: Socket[] = [];
  afterAll(() => {
    for (const socket of crowd) socket.destroy();
    server?.child.kill('SIGKILL');
  });

  it(`${CROWD} silent connections: no request fails inside the server, the cap is logged once, and new clients are served once they go`, async () => {
    server = spawnServer(
      {
        PORT: '0',
        DATABASE_URL: join(folder, `${crowd.length}-${name.length}.db`),
        PLANT_STORE_TOKENS: token,
        ...env,
      },
      { descriptorLimit: 128 },
    );
    const url = await server.ready;
    const output = server.output;
    for (let i = 0; i < CROWD; i++) {
      const localAddress = CROWD_ADDRESSES[i % CROWD_ADDRESSES.length] ?? '';
      const socket = await openSocket(url, { localAddress }).catch(() => undefined);
      if (socket === undefined) continue;
      socket.on('error', () => undefined);
      crowd.push(socket);
    }
    const held = () => crowd.filter((socket) => !socket.destroyed).length;
    const capped = 'MAX_CONNECTIONS' in env;
    // Node closes each one over the cap as it accepts it; until accepted, a connection waits
    // in the kernel's queue.
    if (capped) {
      await expect.poll(held, { timeout: 10_000 }).toBeLessThanOrEqual(64);
    } else await new Promise((resolve) => setTimeout(resolve, 500));
    console.log(`${name}: ${held()} of ${CROWD} crowd connections still open on the client's side`);
    // The log is written at least once a second.
    const logged = () => output().match(/connection cap reached/g)?.length ?? 0;
    if (capped) await expect.poll(logged, { timeout: 5_000 }).toBe(1);
    for (const socket of crowd) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await createsFromNewClients(url, 20, 1_000)).toEqual(Array(20).fill(200));
    expect(logged(), output()).toBe(capped ? 1 : 0);
    expect(output()).not.toMatch(/EMFILE|"level":50/);
  }, 60_000);
});
