import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { adminQuery, createTestSchema, type TestSchema } from '../support/postgres.ts';
import { NO_RATE_LIMITS, type SpawnedServer, spawnServer } from '../support/spawn-server.ts';

// Two real server processes, one PostgreSQL: the scale-out deployment. They start (and
// migrate) at the same moment, then take concurrent creates of the same ids.

const token = `multi-${randomBytes(24).toString('base64url')}`;
let schema: TestSchema;
const servers: SpawnedServer[] = [];
let urls: string[] = [];

beforeAll(async () => {
  schema = await createTestSchema(inject('postgresAdminUrl'), 'plant_multi');
  for (let i = 0; i < 2; i += 1) {
    servers.push(
      spawnServer({
        PORT: '0',
        DATABASE_URL: schema.url,
        PLANT_STORE_TOKENS: token,
        ...NO_RATE_LIMITS,
      }),
    );
  }
  urls = await Promise.all(servers.map((server) => server.ready));
}, 60_000);

afterAll(async () => {
  for (const server of servers) server.child.kill('SIGTERM');
  await Promise.all(servers.map((server) => server.exited));
  await schema.drop();
});

async function create(url: string, id: number, name: string): Promise<number> {
  const response = await fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id, name }),
  });
  await response.arrayBuffer();
  return response.status;
}

/** Runs `tasks` with at most `limit` in flight at once. */
async function withConcurrency<T>(limit: number, tasks: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next;
      next += 1;
      results[index] = await (tasks[index] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

describe('two server instances on one PostgreSQL', () => {
  it('migrated the shared database once', async () => {
    const rows = await adminQuery(schema.url, 'SELECT count(*)::int AS n FROM schema_migrations');
    const versions = await adminQuery(
      schema.url,
      'SELECT count(DISTINCT version)::int AS n FROM schema_migrations',
    );
    expect(rows[0]?.n).toBe(versions[0]?.n);
    expect(rows[0]?.n).toBeGreaterThanOrEqual(1);
  });

  it('stores each id once under concurrent overlapping creates: only 200 and 409, never 500', async () => {
    const [a, b] = urls as [string, string];
    const ids = Array.from({ length: 300 }, (_, i) => 1_000_000 + i);
    // Every id goes to both instances at nearly the same time. Even ids: the same plant
    // (one creates, the other replays: two 200s). Odd ids: two different plants (one 200,
    // one 409). Interleaved so that both instances' batches hold overlapping ids.
    const tasks = ids.flatMap((id) => {
      const second = id % 2 === 0 ? `Plant ${id}` : `Other ${id}`;
      return [() => create(a, id, `Plant ${id}`), () => create(b, id, second)];
    });
    const statuses = await withConcurrency(64, tasks);

    expect(new Set(statuses)).toEqual(new Set([200, 409]));
    const rows = await adminQuery(
      schema.url,
      'SELECT id::text AS id, name FROM plants WHERE id >= 1000000 ORDER BY id',
    );
    expect(rows.map((row) => row.id)).toEqual(ids.map(String));
    ids.forEach((id, i) => {
      const [fromA, fromB] = [statuses[2 * i], statuses[2 * i + 1]];
      const stored = rows[i]?.name as string;
      if (id % 2 === 0) {
        expect([fromA, fromB]).toEqual([200, 200]);
        expect(stored).toBe(`Plant ${id}`);
      } else {
        // Exactly one winner, and the stored row is the winner's plant.
        expect([fromA, fromB].sort()).toEqual([200, 409]);
        expect(stored).toBe(fromA === 200 ? `Plant ${id}` : `Other ${id}`);
      }
    });
  }, 60_000);

  it('lets each instance see the plants the other created', async () => {
    const [a, b] = urls as [string, string];
    expect(await create(a, 42, 'Shared')).toBe(200);
    expect(await create(b, 42, 'Shared')).toBe(200);
    expect(await create(b, 42, 'Not the same')).toBe(409);
  });
});
