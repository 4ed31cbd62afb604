import { once } from 'node:events';
import { contract } from '@plant-store/schema';
import { describe, expect, it } from 'vitest';
import { openSocket, receivedUntilClose, statusLineOf } from '../../test/support/raw-socket.ts';
import { startTestServer } from '../../test/support/start-test-server.ts';
import { DEFAULT_HTTP_TIMEOUTS, httpServerOptions } from './http-server.ts';

// The timeouts as configured on the real server; test/e2e/http-timeouts.test.ts watches them
// fire (Node's own timers, real seconds).

describe('HTTP server timeouts', () => {
  it('are set deliberately on the real server', async () => {
    const server = await startTestServer();
    try {
      expect(server.server.headersTimeout).toBe(5_000);
      expect(server.server.requestTimeout).toBe(30_000);
      expect(server.server.keepAliveTimeout).toBe(65_000);
      expect(server.server.timeout).toBe(30_000); // the progress timeout
      expect(DEFAULT_HTTP_TIMEOUTS.connectionsCheckingIntervalMs).toBe(1_000);
    } finally {
      await server.dispose();
    }
  });

  it('take the given values over the defaults', () => {
    expect(httpServerOptions({ keepAliveTimeoutMs: 120_000 })).toEqual({
      headersTimeout: 5_000,
      requestTimeout: 30_000,
      keepAliveTimeout: 120_000,
      connectionsCheckingInterval: 1_000,
    });
  });
});

describe('the progress timeout', () => {
  it('closes a connection whose client stopped reading the docs script, and spares one that reads', async () => {
    const server = await startTestServer({ timeouts: { progressTimeoutMs: 300 } });
    try {
      const get = `GET ${contract.getDocsScript.path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
      const stalled = await openSocket(server.url);
      stalled.pause(); // never reads: once the kernel's buffers are full, no progress
      stalled.write(get.repeat(12)); // 52 MB of answers: more than the buffers hold
      const reader = await openSocket(server.url);
      let read = 0;
      reader.on('data', (chunk: Buffer) => {
        read += chunk.length;
      });
      reader.write(get);
      // The server's side of the stalled connection closes (its client, paused, does not look).
      const open = () =>
        new Promise<number>((resolve) =>
          server.server.getConnections((_, count) => resolve(count)),
        );
      await expect.poll(open, { timeout: 5_000, interval: 50 }).toBe(1);
      expect(read).toBeGreaterThan(4_000_000); // the whole script, 4.3 MB: read to its end
      expect(reader.destroyed).toBe(false);
      reader.destroy();
      stalled.destroy();
    } finally {
      await server.dispose();
    }
  });
});

describe('shutdown with keep-alive connections', () => {
  it('ends in-flight requests with Connection: close instead of waiting out the keep-alive', async () => {
    // The keep-alive timeout is 65 s and the shutdown's grace 10 s: the shutdown must finish
    // within this test's 10 s by closing the connections, not by waiting for either.
    const closing = await startTestServer();
    const idle = await openSocket(closing.url);
    expect(await statusLineOf(idle, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')).toBe(
      'HTTP/1.1 200 OK',
    );
    const idleClosed = receivedUntilClose(idle);

    // A request in flight: headers and part of its body arrived when the shutdown starts.
    const busy = await openSocket(closing.url);
    const body = '{"id": 7, "name": "Late fern"}';
    const answer = receivedUntilClose(busy);
    const received = once(closing.server, 'request');
    busy.write(
      'POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        `Authorization: Bearer ${closing.token}\r\nContent-Length: ${body.length}\r\n\r\n` +
        body.slice(0, 10),
    );
    await received;
    const closed = closing.dispose();
    busy.write(body.slice(10));

    expect(await idleClosed).toBe('');
    const text = await answer;
    await closed;
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text).toMatch(/\r\nConnection: close\r\n/i);
    expect(text).toMatch(/\{"name":"Late fern"\}$/);
  });
});
