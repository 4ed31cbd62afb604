import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedPostgresServer, startEmbeddedPostgres } from '../support/postgres.ts';
import { type SpawnedServer, spawnServer } from '../support/spawn-server.ts';
import { startTcpProxy } from '../support/tcp-proxy.ts';

// A PostgreSQL of its own (so it can be stopped) under a real server process: the database
// goes away and comes back while the server keeps running.

const token = `outage-${randomBytes(24).toString('base64url')}`;
const CONNECT_TIMEOUT_MS = 1000;
const STATEMENT_TIMEOUT_MS = 2000;
let database: EmbeddedPostgresServer;
const servers: SpawnedServer[] = [];

beforeAll(async () => {
  database = await startEmbeddedPostgres();
}, 60_000);

afterAll(async () => {
  for (const server of servers) server.child.kill('SIGKILL');
  await database?.dispose();
});

function start(env: Record<string, string> = {}): SpawnedServer {
  const server = spawnServer({
    PORT: '0',
    DATABASE_URL: database.url,
    PLANT_STORE_TOKENS: token,
    PG_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
    PG_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
    ...env,
  });
  servers.push(server);
  return server;
}

async function create(url: string, id: number, name: string) {
  const response = await fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id, name }),
  });
  const body: unknown = await response.json();
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body,
  };
}

async function ready(url: string): Promise<number> {
  const response = await fetch(`${url}/readyz`);
  await response.arrayBuffer();
  return response.status;
}

describe('the server when PostgreSQL goes away', () => {
  it('answers 503 with Retry-After while the database is down, and 200 again once it is back, without a restart', async () => {
    const server = start();
    const url = await server.ready;
    expect((await create(url, 1, 'Before')).status).toBe(200);
    expect(await ready(url)).toBe(200);

    await database.stop();
    const down = await create(url, 2, 'During');
    expect(down).toMatchObject({ status: 503, retryAfter: '1', body: { error: 50301 } });
    expect(await ready(url)).toBe(503);
    const again = await create(url, 3, 'During');
    expect(again.status).toBe(503);

    await database.start();
    await expect
      .poll(async () => (await create(url, 2, 'During')).status, { timeout: 15_000, interval: 100 })
      .toBe(200);
    expect(await ready(url)).toBe(200);
    expect((await create(url, 1, 'Before')).status).toBe(200);
    expect((await create(url, 1, 'Changed')).status).toBe(409);

    expect(server.child.exitCode).toBeNull();
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.output()).toMatch(/idle PostgreSQL connection failed/);
  }, 60_000);

  it('answers 503, not a hang, when the network to the database goes silent, and recovers', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: database.port });
    try {
      const proxied = new URL(database.url);
      proxied.port = String(proxy.port);
      const server = start({ DATABASE_URL: proxied.href });
      const url = await server.ready;
      expect((await create(url, 20, 'Before the partition')).status).toBe(200);

      await proxy.setMode('blackhole');
      expect(await ready(url)).toBe(503);
      // Answered once the timeouts run out (query_timeout = statement + connect timeout): a 503,
      // never a hang.
      const down = await create(url, 21, 'During the partition');
      expect(down).toMatchObject({ status: 503, retryAfter: '1', body: { error: 50301 } });

      await proxy.setMode('forward');
      await expect
        .poll(async () => (await create(url, 21, 'During the partition')).status, {
          timeout: 15_000,
          interval: 100,
        })
        .toBe(200);
      expect(await ready(url)).toBe(200);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('fails to start at once when told not to wait, naming the database without its password', async () => {
    await database.stop();
    try {
      const server = start({ PG_STARTUP_WAIT_MS: '0' });
      expect(await server.exited).toBe(1);
      const password = decodeURIComponent(new URL(database.url).password);
      expect(server.output()).toContain(
        'Cannot open the PostgreSQL store at postgres://postgres:***@127.0.0.1:',
      );
      expect(server.output()).toMatch(/ECONNREFUSED/);
      expect(server.output()).not.toContain(password);
    } finally {
      await database.start();
    }
  }, 30_000);

  it('waits at start-up for a database that is not up yet', async () => {
    await database.stop();
    const server = start({ PG_STARTUP_WAIT_MS: '30000' });
    // It tried, failed, logged that it waits, and is still running.
    await expect
      .poll(() => server.output(), { timeout: 20_000, interval: 100 })
      .toMatch(/waiting for PostgreSQL/);
    expect(server.child.exitCode).toBeNull();
    await database.start();
    const url = await server.ready;
    expect((await create(url, 10, 'Late start')).status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  }, 60_000);
});
