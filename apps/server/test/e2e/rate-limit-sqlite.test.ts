import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  create,
  describeSharedLimits,
  type InstancePair,
  itAdmitsAfterRetryAfter,
  itLetsOneBurstThrough,
  LIMIT_TOKENS,
  twoInstances,
} from '../support/two-instance-limits.ts';

// The rate limits of two server processes (two systemd units, or a blue/green start) on one
// real SQLite file: one limit for both, within 10 % of the burst, as instances on one
// PostgreSQL share theirs (rate-limit-postgres.test.ts).

const folder = mkdtempSync(join(tmpdir(), 'plant-store-rate-limit-sqlite-'));
const instances = twoInstances();
afterAll(async () => {
  await instances.stop();
  rmSync(folder, { recursive: true, force: true });
});

describe('two processes on one SQLite file at 5/s with a burst of 50', () => {
  let pair: InstancePair;
  const urls = () => pair;
  beforeAll(async () => {
    pair = await instances.start(join(folder, 'plants.db'), {
      RATE_LIMIT_PER_SECOND: '5',
      RATE_LIMIT_BURST: '50',
    });
  });

  // The allowance of 45 once, and 5 in each second the burst touched (however slow the
  // machine); counted apart, each process would let its own 50 and more through.
  itLetsOneBurstThrough('two processes, 5/s burst 50', urls, LIMIT_TOKENS.burst, (seconds) => {
    return 55 + 5 * Math.floor(seconds);
  });
  itAdmitsAfterRetryAfter(urls);
});

describeSharedLimits(
  'two processes on one SQLite file',
  (env) => instances.start(join(folder, 'budget.db'), env),
  (urls) => {
    it('hold both together to the rate while clients send more than it', async () => {
      // 8 clients, each sending one request after another to either process, until twice the
      // allowance has passed: 4 s of the rate refilling it, held together (counted apart, the
      // two processes refill at twice the rate).
      const began = performance.now();
      const statuses: number[] = [];
      let sent = 0;
      let passed = 0;
      await Promise.all(
        Array.from({ length: 8 }, async (_, client) => {
          while (passed < 80) {
            const { status } = await create(urls()[(client + sent++) % 2] ?? '', LIMIT_TOKENS.own);
            statuses.push(status);
            if (status === 200) passed += 1;
          }
        }),
      );
      const seconds = (performance.now() - began) / 1000;
      expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
      // The allowance of 40, then 10 in each one-second window the run touched.
      expect(passed).toBeLessThanOrEqual(40 + 10 * (Math.ceil(seconds) + 1));
    });
  },
);
