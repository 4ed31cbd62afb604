import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { openSqlite } from '../../src/store/sqlite/driver.ts';
import { freePort } from '../support/free-port.ts';
import { integrityCheck } from '../support/integrity-check.ts';
import { sendCreate } from '../support/own-connection.ts';
import { adminQuery, createTestSchema } from '../support/postgres.ts';
import { NO_RATE_LIMITS, type SpawnedServer, spawnServer } from '../support/spawn-server.ts';

// WEB_CONCURRENCY=2: the real entry point as a primary with two HTTP workers (node:cluster),
// on SQLite and on PostgreSQL: both workers serve, the per-credential limit is one limit for
// the machine, commits from both are stored, a dead worker is replaced, SIGTERM stops all (a
// worker signalled straight serves on), a port in use fails the start in one line.

const folder = mkdtempSync(join(tmpdir(), 'plant-store-cluster-'));
const token = 'cluster-test-token-0123456789abcdef';
const started: SpawnedServer[] = [];
afterEach(() => {
  for (const server of started.splice(0)) server.child.kill('SIGKILL');
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function start(env: Record<string, string>): SpawnedServer {
  const server = spawnServer({
    PORT: '0',
    WEB_CONCURRENCY: '2',
    LOG_LEVEL: 'info',
    PLANT_STORE_TOKENS: token,
    ...env,
  });
  started.push(server);
  return server;
}

/** POST /plants on a connection of its own (so that the cluster hands it to either worker). */
async function create(url: string, id: number, bearer = token): Promise<number> {
  return (await sendCreate(url, bearer, JSON.stringify({ id, name: `Plant ${id}` }))).status;
}

/** GET on a connection of its own; the status. */
function get(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

interface LogLine {
  readonly msg?: string;
  readonly pid?: number;
  readonly status?: number;
  readonly route?: string;
  /** A worker's slot in its own lines; its pid in the primary's line about its exit. */
  readonly worker?: number;
}

/** The JSON log lines the processes wrote. */
function logLines(server: SpawnedServer): LogLine[] {
  return server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

/** Resolves with the URL once the server listens and both workers' log lines are out. */
async function ready(server: SpawnedServer): Promise<string> {
  const url = await server.ready;
  // Log lines reach stdout within a second (observability/logger.ts gathers them).
  await expect.poll(() => workerPids(server).length, { timeout: 5_000 }).toBe(2);
  return url;
}

/** The pids of the workers that said they listen. */
function workerPids(server: SpawnedServer): number[] {
  return logLines(server)
    .filter((line) => line.msg === 'worker serving')
    .map((line) => line.pid ?? 0);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** Stops the server with SIGTERM; expects exit 0, no worker left and the port free. */
async function stopCleanly(server: SpawnedServer, url: string): Promise<void> {
  const pids = workerPids(server);
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
  for (const pid of pids) expect(isAlive(pid)).toBe(false);
  expect(await portIsFree(Number(new URL(url).port))).toBe(true);
}

/** Sends `count` creates (ids from `firstId`), `concurrency` at a time; their statuses. */
async function createMany(
  url: string,
  firstId: number,
  count: number,
  concurrency: number,
  bearer = token,
): Promise<number[]> {
  const statuses: number[] = [];
  for (let offset = 0; offset < count; offset += concurrency) {
    const batch = Array.from(
      { length: Math.min(concurrency, count - offset) },
      (_, i) => firstId + offset + i,
    );
    statuses.push(...(await Promise.all(batch.map((id) => create(url, id, bearer)))));
  }
  return statuses;
}

function storedIds(file: string): number[] {
  const db = openSqlite(file, { readonly: true });
  try {
    return db
      .prepare<[], { id: number }>('SELECT id FROM plants ORDER BY id')
      .all()
      .map((row) => Number(row.id));
  } finally {
    db.close();
  }
}

describe('WEB_CONCURRENCY=2 on SQLite', () => {
  it('serves from both workers on the development token the primary printed once, holds one per-credential limit across them, stops on SIGTERM', async () => {
    const data = join(folder, 'dev');
    const file = join(data, 'limit.db');
    const metricsPort = await freePort();
    const server = start({
      DATABASE_URL: file,
      // No PLANT_STORE_TOKENS: the development token, kept beside the database.
      PLANT_STORE_TOKENS: '',
      // A burst of 10, then one a second: 16 quick creates → 10 (plus one per second the run
      // took) pass, the rest are refused, whichever worker serves them.
      RATE_LIMIT_PER_SECOND: '1',
      RATE_LIMIT_BURST: '10',
      METRICS_PORT: String(metricsPort),
    });
    const url = await ready(server);
    // The startup message and the development token are printed once, by the primary, not by
    // each worker.
    expect(server.output().match(/Plant Store is listening on/g)).toHaveLength(1);
    expect(new Set(workerPids(server)).size).toBe(2);
    await expect.poll(() => server.output()).toMatch(/curl -sS -X POST/);
    expect(server.output().match(/curl -sS -X POST/g)).toHaveLength(1);
    expect(server.output()).toContain(`made now and kept in ${join(data, 'dev-token')}`);
    const devToken = /Bearer ([A-Za-z0-9_-]{43})'/.exec(server.output())?.[1] ?? '';

    const began = performance.now();
    const statuses = await createMany(url, 1, 16, 4, devToken);
    const refilled = Math.floor((performance.now() - began) / 1000);
    const passed = statuses.filter((status) => status === 200).length;
    expect(passed).toBeGreaterThanOrEqual(10);
    expect(passed).toBeLessThanOrEqual(10 + refilled);
    // Every other one is refused by the limit (none as unauthorized: both workers accept the token).
    expect(statuses.filter((status) => status === 429)).toHaveLength(16 - passed);
    // The primary serves the metrics of both workers added up.
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`^plant_store_plants_created_total ${passed}$`, 'm'));
    expect(metrics).toMatch(
      new RegExp(`^plant_store_rate_limited_total\\{limit="token"\\} ${16 - passed}$`, 'm'),
    );

    await stopCleanly(server, url);
    expect(await portIsFree(metricsPort)).toBe(true);
    // Both workers served (the request log names each line's worker by its pid) …
    const served = logLines(server).filter((line) => line.route === '/plants');
    expect(served).toHaveLength(16);
    expect(new Set(served.map((line) => line.pid))).toEqual(new Set(workerPids(server)));
    // … and both refused once the machine's limit was used up: the counts are shared.
    const accepted = served.filter((line) => line.status === 200);
    expect(accepted).toHaveLength(passed);
    expect(storedIds(file)).toHaveLength(passed);
  });

  it('stores every acknowledged create of both workers (one WAL file, several processes); drains on SIGHUP as on SIGTERM: exit 0', async () => {
    const file = join(folder, 'durable.db');
    const server = start({ DATABASE_URL: file, ...NO_RATE_LIMITS });
    const url = await ready(server);
    const statuses = await createMany(url, 1, 100, 16);
    expect(new Set(statuses)).toEqual(new Set([200]));
    // A SIGTERM sent straight to the workers (systemd's default KillMode signals every process
    // of the unit) is absorbed, and so is the SIGHUP a closing terminal sends the whole group:
    // they serve on, and stop when the primary says so.
    const pids = workerPids(server);
    for (const pid of pids) process.kill(pid, 'SIGTERM');
    expect(new Set(await createMany(url, 101, 8, 4))).toEqual(new Set([200]));
    for (const pid of pids) process.kill(pid, 'SIGHUP');
    expect(new Set(await createMany(url, 109, 4, 4))).toEqual(new Set([200]));
    // The primary drains on SIGHUP as on SIGTERM (stopCleanly's, in the other tests).
    server.child.kill('SIGHUP');
    expect(await server.exited).toBe(0);
    expect(server.output()).toMatch(/all workers stopped/);
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    expect(await portIsFree(Number(new URL(url).port))).toBe(true);
    expect(storedIds(file)).toEqual(Array.from({ length: 112 }, (_, i) => i + 1));
    expect(integrityCheck(file)).toEqual([{ integrity_check: 'ok' }]);
  });

  it('replaces a worker that dies, and keeps serving meanwhile; then honours SHUTDOWN_DELAY_MS as one process does: the port stays open, /readyz 503, a create served, then exit 0', async () => {
    const file = join(folder, 'restart.db');
    const server = start({ DATABASE_URL: file, SHUTDOWN_DELAY_MS: '8000', ...NO_RATE_LIMITS });
    const url = await ready(server);
    const [victim, survivor] = workerPids(server);
    if (victim === undefined || survivor === undefined) throw new Error('no workers');
    process.kill(victim, 'SIGKILL');
    await expect.poll(() => isAlive(victim)).toBe(false);
    // Served by the survivor (and by the replacement once it listens).
    expect(new Set(await createMany(url, 1, 6, 3))).toEqual(new Set([200]));
    await expect.poll(() => workerPids(server).length, { timeout: 20_000 }).toBe(3);
    const replacement = workerPids(server)[2] ?? 0;
    expect([victim, survivor]).not.toContain(replacement);
    expect(isAlive(replacement)).toBe(true);
    expect(logLines(server).some((line) => line.msg === 'worker exited unexpectedly')).toBe(true);
    expect(new Set(await createMany(url, 7, 6, 3))).toEqual(new Set([200]));

    // SIGTERM, with SHUTDOWN_DELAY_MS: every probe on a new connection during the delay (handed
    // to the survivor or the replacement): 503, never a refused connection.
    server.child.kill('SIGTERM');
    const probes: (number | string)[] = [];
    for (let i = 0; i < 6; i++) {
      probes.push(await get(`${url}/readyz`).catch((error) => String(error.code)));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The first probe may be answered before a worker heard of the signal.
    expect(new Set(probes.slice(1))).toEqual(new Set([503]));
    // Everything else is still served.
    expect(await createMany(url, 13, 4, 4)).toEqual([200, 200, 200, 200]);
    expect(server.child.exitCode).toBeNull(); // still serving after the probes and the creates
    expect(await server.exited).toBe(0);
    for (const pid of [survivor, replacement]) expect(isAlive(pid)).toBe(false);
    expect(await portIsFree(Number(new URL(url).port))).toBe(true);
    expect(storedIds(file)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
  });

  it('fails the start (exit 1) when a worker dies before all serve, leaving no worker and the port free', async () => {
    const port = await freePort();
    // No PostgreSQL listens on port 1: each worker fails its start at once.
    const server = start({
      DATABASE_URL: 'postgres://plants@127.0.0.1:1/plants',
      PORT: String(port),
    });
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain('a worker failed to start: stopping');
    const pids = logLines(server).flatMap((line) =>
      line.msg === 'worker exited unexpectedly' ? [line.worker ?? 0] : [],
    );
    expect(pids.length).toBeGreaterThan(0);
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    expect(await portIsFree(port)).toBe(true);
  });

  it('fails the start (exit 1) with the one-line message when the port is taken, before any worker starts', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const address = blocker.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      const server = start({ DATABASE_URL: join(folder, 'taken.db'), PORT: String(port) });
      expect(await server.exited).toBe(1);
      expect(server.output()).toBe(
        `plant-store: cannot listen on 127.0.0.1:${port}: ` +
          `listen EADDRINUSE: address already in use 127.0.0.1:${port}\n`,
      );
    } finally {
      blocker.close();
    }
  });
});

describe('WEB_CONCURRENCY=2 on PostgreSQL', () => {
  it('serves from both workers, shares the per-credential limit, stops on SIGTERM', async () => {
    const schema = await createTestSchema(inject('postgresAdminUrl'), 'plant_cluster');
    try {
      // A burst of 6, then one a second (the slowest rate there is).
      const server = start({
        DATABASE_URL: schema.url,
        RATE_LIMIT_PER_SECOND: '1',
        RATE_LIMIT_BURST: '6',
      });
      const url = await ready(server);
      expect(new Set(workerPids(server)).size).toBe(2);
      // On PostgreSQL the workers count through the database, as separate instances do
      // (limits/shared-counts.ts: one batch of upserts a turn), so the limit is exact;
      // per-process limits would take 2 × 6. One more comes back every second, so the bound
      // grows by one per second the run took.
      const statuses: number[] = [];
      const began = performance.now();
      for (let id = 1; id <= 16; id += 1) {
        statuses.push(await create(url, id));
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
      const refilled = Math.floor((performance.now() - began) / 1000);
      const accepted = statuses.filter((status) => status === 200).length;
      expect(accepted).toBeGreaterThanOrEqual(6);
      expect(accepted).toBeLessThanOrEqual(6 + refilled);
      expect(statuses.slice(0, 6)).toEqual([200, 200, 200, 200, 200, 200]);
      await stopCleanly(server, url);
      const served = logLines(server).filter((line) => line.route === '/plants');
      expect(new Set(served.map((line) => line.pid))).toEqual(new Set(workerPids(server)));
      const rows = await adminQuery(schema.url, 'SELECT count(*)::int AS n FROM plants');
      expect(rows[0]?.n).toBe(accepted);
    } finally {
      await schema.drop();
    }
  });
});
