import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createManagedToken } from '../../src/auth/manage-tokens.ts';
import { adminQuery } from '../support/postgres.ts';
import { NO_RATE_LIMITS, type SpawnedServer, spawnServer } from '../support/spawn-server.ts';
import { openTokenStore } from '../support/token-stores.ts';

// One pool per process (PG_POOL_MAX in all) for plants, managed tokens and rate limits, so that
// /readyz tells the truth: a real server process on a database whose connection slots another
// client fills. The database has CONNECTION LIMIT 4 for a role of its own (a superuser would
// not be held to it), so the test's filling stays small on the shared test PostgreSQL.

const admin = inject('postgresAdminUrl');
const suffix = `${process.pid}_${randomBytes(3).toString('hex')}`;
const [database, role, password] = [`plant_slots_${suffix}`, `plant_slots_${suffix}`, 'slots-pw'];
let url: string;
let server: SpawnedServer;
let base: string;
const tokens: string[] = [];
const fillers: pg.Client[] = [];

beforeAll(async () => {
  await adminQuery(admin, `CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
  await adminQuery(admin, `CREATE DATABASE ${database} OWNER ${role} CONNECTION LIMIT 4`);
  const target = new URL(admin);
  target.username = role;
  target.password = password;
  target.pathname = `/${database}`;
  url = target.href;
  const store = await openTokenStore(url, { poolMax: 1 });
  for (const name of ['first', 'second', 'third']) {
    tokens.push((await createManagedToken(store, { name })).token);
  }
  await store.close();
  server = spawnServer({
    PORT: '0',
    NODE_ENV: 'production',
    DATABASE_URL: url,
    PG_POOL_MAX: '2',
    PG_CONNECT_TIMEOUT_MS: '500',
    ...NO_RATE_LIMITS,
    // The limits are on: their counts share the one pool too.
    RATE_LIMIT_PER_SECOND: '1000',
  });
  base = await server.ready;
}, 60_000);

afterAll(async () => {
  await Promise.all(fillers.splice(0).map((client) => client.end().catch(() => undefined)));
  server?.child.kill('SIGTERM');
  await server?.exited;
  await adminQuery(admin, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await adminQuery(admin, `DROP ROLE IF EXISTS ${role}`);
});

let nextId = 1;
async function create(token: string): Promise<number> {
  const response = await fetch(`${base}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id: nextId++, name: 'Fern' }),
  });
  await response.arrayBuffer();
  return response.status;
}

const readiness = async () => (await fetch(`${base}/readyz`)).status;

/** The server's sessions, as PostgreSQL counts them. */
async function serverSessions(): Promise<number> {
  const rows = await adminQuery(
    admin,
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = '${database}' AND application_name = 'plant-store'`,
  );
  return Number(rows[0]?.n);
}

/** Opens connections as the role until the database refuses one (its slots are full). */
async function fillSlots(): Promise<void> {
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => undefined);
    try {
      await client.connect();
    } catch {
      return;
    }
    fillers.push(client);
  }
}

describe('one PostgreSQL pool per process', () => {
  it('holds at most PG_POOL_MAX connections in all, under concurrent creates', async () => {
    const statuses = await Promise.all(
      Array.from({ length: 40 }, (_, i) => create(tokens[i % 2] ?? '')),
    );
    expect(statuses.every((status) => status === 200)).toBe(true);
    const sessions = await serverSessions();
    console.log(`server sessions after 40 concurrent creates with PG_POOL_MAX=2: ${sessions}`);
    expect(sessions).toBeGreaterThanOrEqual(1);
    expect(sessions).toBeLessThanOrEqual(2);
  });

  it('keeps serving token look-ups on its own connections while another client fills the slots', async () => {
    await fillSlots();
    expect(fillers.length).toBeGreaterThanOrEqual(2);
    expect(await create(tokens[2] ?? '')).toBe(200); // a token not yet cached: a look-up
    expect(await readiness()).toBe(200);
  });

  it('answers /readyz 503 when the token look-up cannot reach the database, 200 once it can', async () => {
    // The server's sessions end and the other client keeps every slot (the limit drops to what
    // it holds, so the freed ones are not handed back): the server cannot get a connection.
    await adminQuery(admin, `ALTER DATABASE ${database} CONNECTION LIMIT ${fillers.length}`);
    await adminQuery(
      admin,
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database}' AND application_name = 'plant-store'`,
    );
    const unknown = `pst_${'A'.repeat(49)}`; // malformed checksum: no look-up, a plain 401
    expect(await create(unknown)).toBe(401);
    await expect.poll(readiness, { timeout: 10_000, interval: 200 }).toBe(503);
    // Every token needs a look-up or a commit now: both fail the same way, and readiness says so.
    const statuses = await Promise.all(tokens.map((token) => create(token)));
    expect(statuses).toEqual([503, 503, 503]);
    expect(await readiness()).toBe(503);
    await adminQuery(admin, `ALTER DATABASE ${database} CONNECTION LIMIT 4`);
    await Promise.all(fillers.splice(0).map((client) => client.end()));
    await expect.poll(readiness, { timeout: 10_000, interval: 200 }).toBe(200);
    expect(await create(tokens[0] ?? '')).toBe(200);
  });
});
