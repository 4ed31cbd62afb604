import { ErrorBody } from '@plant-store/schema';
import { describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.ts';
import { shippedConfig, startProxy } from './proxy-process.ts';

// The shipped deploy/nginx.conf and deploy/haproxy.cfg answer their own failures in the
// server's Error shape, never in their HTML pages: here with no instance up at all.

async function errorBody(response: Response): Promise<ErrorBody> {
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return ErrorBody.parse(await response.json());
}

describe.each(['nginx', 'haproxy'] as const)('%s with no instance up', (proxy) => {
  it('answers 503 in the Error shape, with Retry-After', async () => {
    const port = await freePort();
    const upstreams = [await freePort(), await freePort()] as const;
    const running = await startProxy(
      proxy,
      port,
      (folder) => shippedConfig(proxy, port, upstreams, folder),
      503,
    );
    try {
      const response = await fetch(`${running.url}/plants`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
        body: '{"id":1,"name":"Fern"}',
      });
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(await errorBody(response)).toEqual({
        error: 50301,
        message: expect.stringContaining('retry after the Retry-After seconds'),
      });
      if (proxy === 'nginx') {
        // Over client_max_body_size (1 MiB): nginx's own 413, in the Error shape too.
        const large = await fetch(`${running.url}/plants`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: 'x'.repeat(2 * 1024 * 1024),
        });
        expect(large.status).toBe(413);
        expect((await errorBody(large)).error).toBe(41301);
      }
    } finally {
      await running.stop();
    }
  });
});
