import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { firstToSettle } from '../../../test/support/first-to-settle.ts';
import { freePort } from '../../../test/support/free-port.ts';
import { usePostgresStores } from '../../../test/support/postgres-stores.ts';
import { startTcpProxy, type TcpProxy } from '../../../test/support/tcp-proxy.ts';
import { parseDatabase } from '../../config.ts';
import { openDatabaseHandle, type PostgresHandle } from '../database.ts';
import { type Durability, StoreUnavailableError } from '../plant-store.ts';
import { createPostgresStore } from './postgres-store.ts';

const proxies: TcpProxy[] = [];
// Stores close cleanly only when their database is reachable again.
const db = usePostgresStores(async () => {
  for (const proxy of proxies) await proxy.setMode('forward');
});
const { open, sql } = db;

afterEach(async () => {
  for (const proxy of proxies.splice(0)) await proxy.close();
});

/** The schema's URL, but through a TCP proxy whose failure mode the test controls. */
async function proxiedUrl(): Promise<{ url: string; proxy: TcpProxy }> {
  const url = new URL(db.schema().url);
  const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port) });
  proxies.push(proxy);
  url.port = String(proxy.port);
  return { url: url.href, proxy };
}

/** synchronous_commit as a session of a pool opened on `url` with `durability` reports it. */
async function sessionSynchronousCommit(url: string, durability: Durability = 'full') {
  const handle = (await openDatabaseHandle(parseDatabase(url), { durability })) as PostgresHandle;
  try {
    const { rows } = await handle.pool.query<{ setting: string }>(
      "SELECT current_setting('synchronous_commit') AS setting",
    );
    return rows[0]?.setting;
  } finally {
    await handle.close();
  }
}

/** How `promise` settled. */
async function settled<T>(promise: Promise<T>): Promise<PromiseSettledResult<T>> {
  const [result] = await Promise.allSettled([promise]);
  return result as PromiseSettledResult<T>;
}

describe('exact int64 ids', () => {
  it('reads int8 as bigint in this pool only, leaving the pg default (string) alone', async () => {
    const store = await open();
    await store.create({ id: 2n ** 53n + 1n, name: 'Big' });
    expect(await store.create({ id: 2n ** 53n + 1n, name: 'Big' })).toBe('replayed');
    const client = new pg.Client({ connectionString: db.schema().url });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT id FROM plants');
      expect(rows).toEqual([{ id: '9007199254740993' }]);
    } finally {
      await client.end();
    }
  });
});

describe('rows the database refuses', () => {
  it('falls back to one INSERT per row when the database rejects the batch, so only the bad row fails', async () => {
    const store = await open();
    await sql(`ALTER TABLE plants ADD CONSTRAINT no_weeds CHECK (name <> 'Weed')`);
    const results = await Promise.allSettled([
      store.create({ id: 1n, name: 'Fern' }),
      store.create({ id: 2n, name: 'Weed' }),
      store.create({ id: 3n, name: 'Moss' }),
      store.create({ id: 3n, name: 'Moss' }),
      store.create({ id: 2n, name: 'Weed' }),
    ]);
    expect(results).toEqual([
      { status: 'fulfilled', value: 'created' },
      { status: 'rejected', reason: expect.objectContaining({ code: '23514' }) },
      { status: 'fulfilled', value: 'created' },
      { status: 'fulfilled', value: 'replayed' },
      { status: 'rejected', reason: expect.objectContaining({ code: '23514' }) },
    ]);
    expect(await sql('SELECT id::text AS id FROM plants ORDER BY id')).toEqual([
      { id: '1' },
      { id: '3' },
    ]);
  });
});

describe('durability', () => {
  it('reads synchronous_commit back: on by default, off for durability normal', async () => {
    expect(await sessionSynchronousCommit(db.schema().url)).toBe('on');
    expect(await sessionSynchronousCommit(db.schema().url, 'normal')).toBe('off');
  });

  it('refuses a server or role with synchronous_commit = off unless durability is normal', async () => {
    const url = new URL(db.schema().url);
    url.searchParams.set('options', `${url.searchParams.get('options')} -c synchronous_commit=off`);
    await expect(createPostgresStore({ url: url.href })).rejects.toThrow(
      /synchronous_commit = off/,
    );
    const store = await createPostgresStore({ url: url.href, durability: 'normal' });
    db.track(store);
    expect(await store.create({ id: 1n, name: 'Fern' })).toBe('created');
    expect(await sessionSynchronousCommit(url.href, 'normal')).toBe('off');
  });
});

describe('an unreachable database', () => {
  it('fails opening at once for a refused connection when startupWaitMs is 0', async () => {
    const url = `postgres://app:hunter2@127.0.0.1:${await freePort()}/plants`;
    const attempts: string[] = [];
    const result = await settled(
      createPostgresStore({
        url,
        startupWaitMs: 0,
        onError: (error) => attempts.push(error.message),
      }),
    );
    expect(result.status).toBe('rejected');
    const reason = (result as PromiseRejectedResult).reason as Error;
    expect(reason.message).toMatch(
      /^Cannot open the PostgreSQL store at postgres:\/\/app:\*\*\*@127\.0\.0\.1:\d+\/plants: .*ECONNREFUSED/,
    );
    expect(attempts).toEqual([]); // no attempt retried
  });

  it('fails opening at once for a refused login, without waiting', async () => {
    const url = new URL(db.schema().url);
    url.password = 'wrong-password';
    const result = await settled(createPostgresStore({ url: url.href, startupWaitMs: 60_000 }));
    expect(result).toMatchObject({
      status: 'rejected',
      reason: { message: expect.stringMatching(/password authentication failed/) },
    });
  });

  it('gives up connecting to a silent server after connectTimeoutMs', async () => {
    const { url, proxy } = await proxiedUrl();
    await proxy.setMode('blackhole');
    // The order of two timers, not a clock reading: a timer of the default connect timeout
    // (2000 ms) started first, then the store with 300 ms; the store gives up first (with its
    // timeout ignored, it would wait the default, and the timer would end first).
    const reference = delay(2000);
    const race = await firstToSettle(
      createPostgresStore({ url, connectTimeoutMs: 300, startupWaitMs: 0 }),
      reference,
    );
    expect(race.first).toBe('configured');
    expect(race.configured).toMatchObject({
      message: expect.stringMatching(/timeout|terminated/i),
    });
  });

  it('waits at start-up until the database is reachable, reporting each failed attempt', async () => {
    const { url, proxy } = await proxiedUrl();
    await proxy.setMode('refuse');
    const attempts: string[] = [];
    const opening = createPostgresStore({
      url,
      startupWaitMs: 20_000,
      onError: (error, context) => attempts.push(`${context}: ${error.message}`),
    });
    await expect.poll(() => attempts.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    expect(attempts[0]).toMatch(/^waiting for PostgreSQL: /);
    await proxy.setMode('forward');
    const store = await opening;
    db.track(store);
    expect(await store.create({ id: 1n, name: 'Fern' })).toBe('created');
  });

  it('answers StoreUnavailableError, not a hang, when an open store loses the network, and recovers', async () => {
    const { url, proxy } = await proxiedUrl();
    const store = await open({ url, connectTimeoutMs: 500, statementTimeoutMs: 3000 });
    expect(await store.create({ id: 1n, name: 'Fern' })).toBe('created');

    await proxy.setMode('blackhole');
    // A pooled connection goes silent mid-query: the client gives up after query_timeout
    // (statement timeout + connect timeout), the ping after the connect timeout.
    expect(await settled(store.ping())).toMatchObject({
      status: 'rejected',
      reason: expect.any(StoreUnavailableError),
    });
    expect(await settled(store.create({ id: 2n, name: 'Moss' }))).toMatchObject({
      status: 'rejected',
      reason: expect.any(StoreUnavailableError),
    });

    await proxy.setMode('refuse');
    expect(await settled(store.create({ id: 3n, name: 'Ivy' }))).toMatchObject({
      status: 'rejected',
      reason: expect.any(StoreUnavailableError),
    });

    await proxy.setMode('forward');
    await expect(store.ping()).resolves.toBeUndefined();
    expect(await store.create({ id: 3n, name: 'Ivy' })).toBe('created');
    // The create that timed out may or may not have committed: a retry tells which, safely.
    expect(['created', 'replayed']).toContain(await store.create({ id: 2n, name: 'Moss' }));
  });

  it('survives its idle connections being terminated, reporting them, and reconnects', async () => {
    const url = new URL(db.schema().url);
    url.searchParams.set('application_name', db.schema().name);
    const reported: string[] = [];
    const store = await open({
      url: url.href,
      onError: (error, context) => reported.push(`${context}: ${error.message}`),
    });
    await Promise.all([store.ping(), store.ping(), store.ping()]);
    const terminated = await sql(
      `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE application_name = '${db.schema().name}'`,
    );
    expect(terminated.length).toBeGreaterThanOrEqual(1);
    await expect.poll(() => reported.length).toBeGreaterThanOrEqual(1);
    expect(reported[0]).toMatch(/^idle PostgreSQL connection failed: terminating connection/);
    expect(await store.create({ id: 1n, name: 'Fern' })).toBe('created');
  });
});

describe('readiness: the ability to commit', () => {
  it('turns not ready when PostgreSQL cannot be reached, with the cause, and ready again', async () => {
    const { url, proxy } = await proxiedUrl();
    const changes: string[] = [];
    const store = await open({
      url,
      connectTimeoutMs: 1000,
      probeIntervalMs: 60_000,
      onReadinessChange: (next) => changes.push(next.ready ? 'ready' : next.cause.code),
    });
    expect(await store.probeReadiness()).toEqual({ ready: true });
    await proxy.setMode('refuse');
    const down = await store.probeReadiness();
    expect(down.ready).toBe(false);
    // A create that fails the same way keeps it not ready (no second transition).
    await expect(store.create({ id: 1n, name: 'Fern' })).rejects.toThrow(StoreUnavailableError);
    await proxy.setMode('forward');
    expect(await store.probeReadiness()).toEqual({ ready: true });
    expect(changes).toHaveLength(2);
    expect(changes[1]).toBe('ready');
    expect(store.readiness()).toEqual({ ready: true });
  });

  it('turns not ready while the probe cannot write (a lock held past the statement timeout: 57014)', async () => {
    const store = await open({ statementTimeoutMs: 300, probeIntervalMs: 60_000 });
    expect(await store.probeReadiness()).toEqual({ ready: true });
    const locker = new pg.Client({ connectionString: db.schema().url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE plants IN ACCESS EXCLUSIVE MODE');
      expect(await store.probeReadiness()).toMatchObject({
        ready: false,
        cause: { code: '57014', message: /^PostgreSQL is unavailable: canceling statement/ },
      });
      await locker.query('ROLLBACK');
    } finally {
      await locker.end();
    }
    expect(await store.probeReadiness()).toEqual({ ready: true });
    expect(await store.create({ id: 1n, name: 'Fern' })).toBe('created');
  });
});
