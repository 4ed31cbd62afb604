import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendCreate } from '../support/own-connection.ts';
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

/** The status of a create with a wrong token, on a new connection from `localAddress`. */
async function guess(localAddress: string, forwardedFor: string): Promise<number> {
  const token = `wrong-token-${forwardedFor}-0123456789`;
  const answer = await sendCreate(url, token, '{"id": 1, "name": "Fern"}', {
    localAddress,
    headers: { 'x-forwarded-for': forwardedFor },
  });
  return answer.status;
}

describe('TRUST_PROXY=127.0.0.1, a real process', () => {
  it('counts a direct client by its own address, whatever X-Forwarded-For it sends', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push(await guess('127.0.0.2', `198.51.100.${i + 1}`));
    expect(statuses).toEqual([...Array(BUDGET).fill(401), ...Array(40 - BUDGET).fill(429)]);
  });

  it('counts each client the proxy names on its own', async () => {
    expect(await guess('127.0.0.1', '203.0.113.7')).toBe(401);
    expect(await guess('127.0.0.1', '203.0.113.8')).toBe(401);
  });
});
