import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORGED_FORMS } from '../proxies/forged-addresses.ts';
import { openSocket, receivedUntilClose } from '../support/raw-socket.ts';
import { type SpawnedServer, spawnServer } from '../support/spawn-server.ts';

// TRUST_PROXY on the real process: the proxy is 127.0.0.1, and a client that reaches the port
// around it connects from 127.0.0.2 (all of 127.0.0.0/8 is this machine's loopback).

const BUDGET = 30; // AUTH_FAILURES_PER_MINUTE's default
const folder = mkdtempSync(join(tmpdir(), 'plant-store-proxy-'));
let server: SpawnedServer;
let url: string;

beforeAll(async () => {
  server = spawnServer({
    PORT: '0',
    DATABASE_URL: join(folder, 'plants.db'),
    PLANT_STORE_TOKENS: 'trusted-proxy-token-0123456789',
    TRUST_PROXY: '127.0.0.1',
  });
  url = await server.ready;
});
afterAll(async () => {
  server.child.kill('SIGKILL');
  await server.exited;
  rmSync(folder, { recursive: true, force: true });
});

/** The status of a create with a wrong token and `headers`, on a new connection from `localAddress`. */
async function guess(localAddress: string, headers: string): Promise<number> {
  const socket = await openSocket(url, { localAddress });
  const answer = receivedUntilClose(socket);
  const body = '{"id": 1, "name": "Fern"}';
  socket.write(
    `POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wrong-token-${localAddress}-0123456789\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n${headers}\r\n${body}`,
  );
  return Number(/^HTTP\/1\.1 (\d{3}) /.exec(await answer)?.[1]);
}

describe('TRUST_PROXY=127.0.0.1, a real process', () => {
  it('counts a direct client by its own address, whatever address its headers name', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const form = FORGED_FORMS[i % FORGED_FORMS.length] ?? (() => '');
      statuses.push(await guess('127.0.0.2', form(`198.51.100.${i + 1}`)));
    }
    expect(statuses).toEqual([...Array(BUDGET).fill(401), ...Array(40 - BUDGET).fill(429)]);
    // Another direct client has its budget whole.
    expect(await guess('127.0.0.3', '')).toBe(401);
  });

  it('counts each client the proxy names on its own', async () => {
    expect(await guess('127.0.0.1', 'X-Forwarded-For: 203.0.113.7\r\n')).toBe(401);
    expect(await guess('127.0.0.1', 'X-Forwarded-For: 203.0.113.8\r\n')).toBe(401);
  });
});
