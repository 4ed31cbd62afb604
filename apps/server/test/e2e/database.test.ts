import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { parseDatabase } from '../../src/config.ts';
import {
  type DatabaseHandle,
  type OpenDatabaseOptions,
  openDatabaseHandle,
  type PostgresHandle,
} from '../../src/store/database.ts';
import { createPostgresStore } from '../../src/store/postgres/postgres-store.ts';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { firstToSettle } from '../support/first-to-settle.ts';
import { freePort } from '../support/free-port.ts';
import { adminQuery, createTestSchema, type TestSchema } from '../support/postgres.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';

// The one handle a process holds on its database (store/database.ts), against a real SQLite
// file and the real test PostgreSQL.

let dir: string;
let schema: TestSchema;
const handles: DatabaseHandle[] = [];
const proxies: TcpProxy[] = [];

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'plant-database-'));
  schema = await createTestSchema(inject('postgresAdminUrl'), 'database_test');
});

afterEach(async () => {
  for (const handle of handles.splice(0)) await handle.close();
  for (const proxy of proxies.splice(0)) await proxy.close();
  await schema.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function open(url: string, options: OpenDatabaseOptions = {}) {
  const handle = await openDatabaseHandle(parseDatabase(url), options);
  handles.push(handle);
  return handle;
}

async function openPostgres(options: OpenDatabaseOptions = {}, url = schema.url) {
  return (await open(url, options)) as PostgresHandle;
}

/** The session settings a pooled connection reports. */
async function sessionSettings(handle: PostgresHandle) {
  const { rows } = await handle.pool.query<Record<string, string>>(`
    SELECT current_setting('statement_timeout') AS statement_timeout,
           current_setting('lock_timeout') AS lock_timeout,
           current_setting('idle_in_transaction_session_timeout') AS idle_in_transaction,
           current_setting('application_name') AS application_name,
           current_setting('synchronous_commit') AS synchronous_commit`);
  return rows[0];
}

describe('a SQLite file', () => {
  it('is opened through file:///absolute and file:relative URLs alike, and shared with a store', async () => {
    const filename = path.join(dir, 'sub', 'plants.db');
    const first = await open(pathToFileURL(filename).href, { durability: 'normal' });
    if (first.kind !== 'sqlite') throw new Error('expected SQLite');
    const store = createSqliteStore({ filename, db: first.db });
    expect(first.db.pragma('synchronous', { simple: true })).toBe(1);
    expect(first.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(await store.create({ id: 2n, name: 'Moss' })).toBe('created');
    await store.close(); // the handle stays open: the store does not own it
    expect(first.db.open).toBe(true);
    const second = await open(`file:${path.relative(process.cwd(), filename)}`);
    if (second.kind !== 'sqlite') throw new Error('expected SQLite');
    const again = createSqliteStore({ filename, db: second.db });
    expect(await again.create({ id: 2n, name: 'Moss' })).toBe('replayed');
    await again.close();
  });
});

describe('a PostgreSQL database', () => {
  it('is one pool with the PG_* settings, named plant-store, shared with the plant store', async () => {
    for (const url of [schema.url, schema.url.replace(/^postgres:/, 'postgresql:')]) {
      const handle = await openPostgres(
        {
          durability: 'normal',
          postgres: { poolMax: 3, connectTimeoutMs: 1500, statementTimeoutMs: 2500 },
        },
        url,
      );
      expect(handle.settings).toEqual({
        poolMax: 3,
        connectTimeoutMs: 1500,
        statementTimeoutMs: 2500,
        queryTimeoutMs: 4000,
      });
      expect(await sessionSettings(handle)).toEqual({
        statement_timeout: '2500ms',
        lock_timeout: '2500ms',
        idle_in_transaction: '2500ms',
        application_name: 'plant-store',
        synchronous_commit: 'off',
      });
      const store = await createPostgresStore({ url, handle });
      const outcome = await store.create({ id: 1n, name: 'Fern' });
      expect(outcome).toBe(url === schema.url ? 'created' : 'replayed');
      await store.close();
      expect(handle.pool.ended).toBe(false);
    }
  });

  it('cancels a statement that runs past the statement timeout', async () => {
    const { pool } = await openPostgres({ postgres: { statementTimeoutMs: 200 } });
    await expect(pool.query('SELECT pg_sleep(5)')).rejects.toMatchObject({ code: '57014' });
  });

  it('fails to open an unreachable PostgreSQL at once when told not to wait, masking the password', async () => {
    const url = `postgres://app:hunter2@127.0.0.1:${await freePort()}/plants`;
    const error = await open(url, { postgres: { startupWaitMs: 0 } }).catch((e: unknown) => e);
    expect(String(error)).toContain(
      'Cannot open the PostgreSQL store at postgres://app:***@127.0.0.1:',
    );
    expect(String(error)).toMatch(/ECONNREFUSED/);
    expect(String(error)).not.toContain('hunter2');
  });

  it('gives up getting a connection from a silent server after the connect timeout', async () => {
    const target = new URL(schema.url);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port) });
    proxies.push(proxy);
    target.port = String(proxy.port);
    await proxy.setMode('blackhole');
    // Started together against the same silent server: the configured 300 ms gives up before
    // the 2000 ms default does (the order of two timers, not a clock reading).
    const race = await firstToSettle(
      openDatabaseHandle(parseDatabase(target.href), { postgres: { connectTimeoutMs: 300 } }),
      openDatabaseHandle(parseDatabase(target.href)),
    );
    expect(race.first).toBe('configured');
    for (const error of [race.configured, race.reference]) {
      expect(String(error)).toMatch(/connection timeout|trying to connect/);
    }
  });

  it('reports an idle connection the database terminated to onError; the next query reconnects', async () => {
    const reported: string[] = [];
    const { pool } = await openPostgres({
      postgres: { poolMax: 1 },
      onError: (error, context) => reported.push(`${context}: ${error.message}`),
    });
    const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await adminQuery(schema.url, `SELECT pg_terminate_backend(${rows[0]?.pid})`);
    await expect.poll(() => reported.length).toBe(1);
    expect(reported[0]).toMatch(/^idle PostgreSQL connection failed: terminating connection/);
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('refuses a LATIN1 database in one line naming the encoding and what to do', async () => {
    const name = `plant_latin1_${process.pid}`;
    const admin = inject('postgresAdminUrl');
    await adminQuery(admin, `DROP DATABASE IF EXISTS ${name}`);
    await adminQuery(
      admin,
      `CREATE DATABASE ${name} ENCODING 'LATIN1' TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'`,
    );
    try {
      const url = new URL(admin);
      url.pathname = `/${name}`;
      const error = await open(url.href).catch((e: unknown) => e);
      expect(String(error)).toBe(
        `StartupError: the database ${name} uses the server encoding LATIN1, which cannot hold every valid plant name (e.g. "fern 🌱"); create the database with ENCODING 'UTF8' (CREATE DATABASE ${name}_utf8 ENCODING 'UTF8' TEMPLATE template0), move the data (pg_dump | psql) and point DATABASE_URL at it`,
      );
    } finally {
      await adminQuery(admin, `DROP DATABASE IF EXISTS ${name}`);
    }
  });
});
