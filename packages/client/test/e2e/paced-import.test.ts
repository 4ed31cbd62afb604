import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RATE_LIMIT_HEADERS } from '@plant-store/schema/shapes';
import { readPlantRows, spawnServer } from '@plant-store/server/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlantStoreClient } from '../../src/client.ts';
import { Pacer } from '../../src/pacer.ts';

// An internal app importing plants with the client into the real server process (its entry
// point, a real SQLite file, real HTTP on 127.0.0.1), over the per-credential rate limit:
// the client paces itself on the X-RateLimit-* headers, and nothing fails.

const TOKEN = 'paced-import-token-0123456789';
const PER_SECOND = 50;
const BURST = 200;
const TOTAL = 300;
const IN_FLIGHT = 8;

let dir: string;
let server: ReturnType<typeof spawnServer>;
let url: string;

/** How many requests the server refused with 429 for a credential, from its /metrics. */
async function refusedByServer(): Promise<number> {
  // The start-up line names it: `Metrics: http://…/metrics` (plain) or `"metrics":"http://…"` (JSON).
  const metricsUrl = /(http:\/\/[^"\s]+\/metrics)/.exec(server.output())?.[1];
  if (metricsUrl === undefined) throw new Error(`no metrics URL in ${server.output()}`);
  const text = await (await fetch(metricsUrl)).text();
  return Number(/^plant_store_rate_limited_total\{limit="token"\} (\d+)$/m.exec(text)?.[1] ?? 0);
}
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'plant-store-paced-'));
  server = spawnServer({
    PORT: '0',
    DATABASE_URL: join(dir, 'plants.db'),
    PLANT_STORE_TOKENS: TOKEN,
    RATE_LIMIT_PER_SECOND: String(PER_SECOND),
    RATE_LIMIT_BURST: String(BURST),
    METRICS_PORT: '0',
    LOG_LEVEL: 'info',
  });
  url = await server.ready;
});
afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
  rmSync(dir, { recursive: true, force: true });
});

describe('a bulk import over the rate limit', () => {
  it(`creates ${TOTAL} plants at ${PER_SECOND}/s with ${IN_FLIGHT} in flight: no error, every plant stored`, async () => {
    // The limit each answer said was in force (what the client paces on).
    const limits = new Set<string | null>();
    const client = createPlantStoreClient({
      baseUrl: url,
      token: TOKEN,
      pacer: new Pacer(),
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        limits.add(response.headers.get(RATE_LIMIT_HEADERS.limit));
        return response;
      },
    });
    let next = 0;
    const errors: unknown[] = [];
    const worker = async () => {
      while (next < TOTAL) {
        const id = ++next;
        await client.createPlant({ id, name: `plant ${id}` }).catch((error: unknown) => {
          errors.push(error);
        });
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));

    expect(errors).toEqual([]);
    expect([...limits]).toEqual([String(PER_SECOND)]);
    // It paced rather than retried: (almost) nothing was refused on the way.
    expect(await refusedByServer()).toBeLessThanOrEqual(IN_FLIGHT);
    const rows = readPlantRows(join(dir, 'plants.db'));
    expect(rows.map((row) => row.id)).toEqual(
      Array.from({ length: TOTAL }, (_, i) => BigInt(i + 1)),
    );
  });
});
