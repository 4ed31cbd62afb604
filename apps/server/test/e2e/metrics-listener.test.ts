import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/start-test-server.ts';

// The metrics listener (observability/metrics-listener.ts) on a port of its own, after real
// traffic on the API's; src/observability/metrics.test.ts reads the same metrics in process.

let server: TestServer;
let metricsUrl: string;

beforeAll(async () => {
  server = await startTestServer({ metrics: true });
  metricsUrl = `${server.metricsUrl}/metrics`;
});
afterAll(async () => {
  await server.dispose();
});

describe('the metrics listener', () => {
  it('serves the exposition of the API it sits beside', async () => {
    await (await fetch(`${server.url}/healthz`)).arrayBuffer();
    const response = await fetch(metricsUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.text()).toMatch(
      /^http_request_duration_seconds_count\{[^}]*route="\/healthz"[^}]*\} [1-9]/m,
    );
  });

  it('serves only GET/HEAD /metrics', async () => {
    const head = await fetch(metricsUrl, { method: 'HEAD' });
    expect(head.status).toBe(200);
    const other = await fetch(`${server.metricsUrl}/plants`);
    expect(other.status).toBe(404);
    await other.arrayBuffer();
    const post = await fetch(metricsUrl, { method: 'POST', body: 'x' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    await post.arrayBuffer();
  });

  it('is not there unless asked for', async () => {
    const plain = await startTestServer();
    try {
      expect(plain.metricsUrl).toBeUndefined();
    } finally {
      await plain.dispose();
    }
  });
});
