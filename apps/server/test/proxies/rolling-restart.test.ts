import { afterEach, describe, expect, inject, it } from 'vitest';
import { createTestSchema, type TestSchema } from '../support/postgres.ts';
import { rollingRestart } from './rolling-restart.ts';

// deploy/nginx.conf and deploy/haproxy.cfg as shipped (ports and paths changed only), in front
// of two instances on one PostgreSQL: a rolling restart under a steady load of unique creates
// gives no client an error, and every acknowledged create is stored exactly once (the id is the
// table's key; its row holds the acknowledged plant), with nothing stored that no client saw
// acknowledged.

let schema: TestSchema | undefined;
afterEach(async () => {
  await schema?.drop();
  schema = undefined;
});

describe.each(['nginx', 'haproxy'] as const)('rolling restart behind %s', (proxy) => {
  it('no client error, every acknowledged create stored once', async ({ signal }) => {
    schema = await createTestSchema(inject('postgresAdminUrl'), `plant_${proxy}`);
    const result = await rollingRestart({ proxy, databaseUrl: schema.url, signal });
    expect(result.exitCodes).toEqual([0, 0]);
    expect(result.acknowledged).toBeGreaterThan(100);
    expect(result.clientErrors, result.proxyLog.slice(-4_000)).toEqual({});
    expect(result.lost).toEqual([]);
    expect(result.unacknowledgedStored).toBe(0);
  });
});
