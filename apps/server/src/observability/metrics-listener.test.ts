import { PassThrough } from 'node:stream';
import { inject } from 'light-my-request';
import { Gauge, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';
import { ServiceMetrics } from './metrics.ts';
import { serveMetrics } from './metrics-listener.ts';

// What the metrics listener answers, its requests injected in process (no socket);
// test/e2e/metrics-listener.test.ts scrapes a listening one beside a running server.

function listener(registry: Registry = new ServiceMetrics().registry) {
  const stream = new PassThrough();
  let logged = '';
  stream.on('data', (chunk: Buffer) => {
    logged += chunk.toString();
  });
  const handle = serveMetrics(registry, createLogger('info', { destination: stream }));
  return { handle, logged: () => logged };
}

describe('serveMetrics', () => {
  it("answers GET /metrics with the registry's exposition, never cached", async () => {
    const metrics = new ServiceMetrics();
    metrics.plantsCreated.inc(3);
    const response = await inject(listener(metrics.registry).handle, '/metrics?x=1');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe(metrics.registry.contentType);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.body).toMatch(/^plant_store_plants_created_total 3$/m);
  });

  it('answers HEAD with the headers alone', async () => {
    const response = await inject(listener().handle, { method: 'HEAD', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('');
  });

  it('answers 404 for any other path, 405 with Allow for any other method', async () => {
    const { handle } = listener();
    const elsewhere = await inject(handle, '/plants');
    expect([elsewhere.statusCode, elsewhere.body]).toEqual([
      404,
      'Not found: metrics are at /metrics\n',
    ]);
    const post = await inject(handle, { method: 'POST', url: '/metrics', payload: 'x' });
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    expect(post.headers['cache-control']).toBe('no-store');
  });

  it('answers 500 and logs the error when collecting fails', async () => {
    const failing = new Registry();
    new Gauge({
      name: 'broken',
      help: 'A gauge whose collection throws.',
      registers: [failing],
      collect() {
        throw new Error('collector broke');
      },
    });
    const { handle, logged } = listener(failing);
    const response = await inject(handle, '/metrics');
    expect([response.statusCode, response.body]).toEqual([500, 'Metrics collection failed\n']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(JSON.parse(logged())).toMatchObject({
      level: 50,
      msg: 'metrics collection failed',
      err: { message: 'collector broke' },
    });
  });
});
