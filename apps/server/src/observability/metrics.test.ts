import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { ServiceMetrics } from './metrics.ts';

// The app's metrics after injected traffic, as the metrics listener exposes them
// (test/e2e/metrics-listener.test.ts scrapes the listener itself).

let server: TestApp;

beforeAll(async () => {
  server = await createTestApp({ metrics: true });
});
afterAll(async () => {
  await server.dispose();
});

/** The value of the sample `name{labels}` in a Prometheus exposition (labels matched as given). */
function sample(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/([a-zA-Z_]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) {
      return Number(match[3]);
    }
  }
  return undefined;
}

async function scrape(app: TestApp = server): Promise<string> {
  if (!app.metrics) throw new Error('an app without metrics');
  expect(app.metrics.registry.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
  return app.metrics.registry.metrics();
}

function createPlant(id: number, name: string): Promise<Response> {
  return server.fetch('/plants', {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id, name }),
  });
}

describe('the metrics of an app', () => {
  it('are not served by the API', async () => {
    const response = await server.fetch('/metrics');
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: 40401,
      message: 'No operation at GET /metrics',
    });
  });

  it('counts created plants, not replays or conflicts', async () => {
    const before = sample(await scrape(), 'plant_store_plants_created_total') ?? 0;
    const statuses = [];
    for (const [id, name] of [
      [1, 'Fern'],
      [2, 'Ivy'],
      [1, 'Fern'],
      [1, 'Moss'],
    ] as const) {
      const response = await createPlant(id, name);
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    expect(statuses).toEqual([200, 200, 200, 409]);
    const text = await scrape();
    expect(sample(text, 'plant_store_plants_created_total')).toBe(before + 2);
    expect(
      sample(text, 'plant_store_operation_duration_seconds_count', {
        operation: 'create',
        outcome: 'replayed',
      }),
    ).toBe(1);
    expect(
      sample(text, 'plant_store_operation_duration_seconds_count', {
        operation: 'create',
        outcome: 'conflict',
      }),
    ).toBe(1);
  });

  it('has request durations by method, route and status, with unknown paths as "unmatched"', async () => {
    await (await server.fetch('/healthz')).arrayBuffer();
    await (await server.fetch('/wp-admin/secret-probe')).arrayBuffer();
    const text = await scrape();
    const labels = { method: 'GET', route: '/healthz', status: '200' };
    expect(sample(text, 'http_request_duration_seconds_count', labels)).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, 'http_request_duration_seconds_bucket', { ...labels, le: '+Inf' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sample(text, 'http_request_duration_seconds_count', {
        method: 'POST',
        route: '/plants',
        status: '409',
      }),
    ).toBe(1);
    expect(
      sample(text, 'http_request_duration_seconds_count', { route: 'unmatched', status: '404' }),
    ).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain('wp-admin');
  });

  it('has group-commit batch sizes: creates of one turn share a transaction', async () => {
    const before = await scrape();
    const count = (text: string) => sample(text, 'plant_store_group_commit_batch_size_count') ?? 0;
    const sum = (text: string) => sample(text, 'plant_store_group_commit_batch_size_sum') ?? 0;
    // Submitted in one event-loop turn through the server's own (measured) store: whether 50
    // HTTP requests reach the server within one turn depends on the machine's timing.
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        server.store.create({ id: BigInt(100 + i), name: `Batch ${i}` }),
      ),
    );
    expect(outcomes.every((outcome) => outcome === 'created')).toBe(true);
    const after = await scrape();
    expect(sum(after) - sum(before)).toBe(50);
    expect(count(after) - count(before)).toBe(1);
    expect(
      sample(after, 'plant_store_group_commit_duration_seconds_count', { committed: 'true' }),
    ).toBe(count(after));
  });

  it('has the process metrics of this registry', async () => {
    const text = await scrape();
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    expect(text).toContain('nodejs_heap_size_used_bytes');
  });
});

describe('metrics configuration', () => {
  it('gives each server its own registry (several apps in one process)', async () => {
    const second = await createTestApp({ metrics: true });
    try {
      const response = await second.fetch('/healthz');
      await response.arrayBuffer();
      const text = await scrape(second);
      expect(sample(text, 'plant_store_plants_created_total')).toBe(0);
      expect(
        sample(text, 'http_request_duration_seconds_count', { route: '/healthz', status: '200' }),
      ).toBe(1);
    } finally {
      await second.dispose();
    }
  });

  it('has no metrics unless asked for', async () => {
    const plain = await createTestApp();
    try {
      expect(plain.metrics).toBeUndefined();
      expect((await plain.fetch('/metrics')).status).toBe(404);
    } finally {
      await plain.dispose();
    }
  });
});

describe('ServiceMetrics store observer', () => {
  it('records group commits: the batch size of each committed one, the time of every one', async () => {
    const metrics = new ServiceMetrics();
    const observer = metrics.storeObserver();
    observer.onCommit?.(3, 0.004, true);
    observer.onCommit?.(2, 0.002, false);
    const body = await metrics.registry.metrics();
    expect(sample(body, 'plant_store_group_commit_batch_size_sum')).toBe(3);
    expect(sample(body, 'plant_store_group_commit_batch_size_count')).toBe(1);
    const failed = { committed: 'false' };
    expect(sample(body, 'plant_store_group_commit_duration_seconds_count', failed)).toBe(1);
  });
});
