import { describe, expect, it } from 'vitest';
import { createHttpServer, DEFAULT_HTTP_TIMEOUTS } from './http-server.ts';

// The node:http settings the API's server is made with; test/e2e/http-server.test.ts and
// http-timeouts.test.ts drive a listening one with raw sockets.

const make = (options: Partial<Parameters<typeof createHttpServer>[1]> = {}) =>
  createHttpServer(() => undefined, {
    timeouts: {},
    maxConnections: 0,
    onDrop: () => undefined,
    ...options,
  });

describe('createHttpServer', () => {
  it("has its timeouts set deliberately, on Node's own settings", () => {
    const server = make();
    expect(server.headersTimeout).toBe(5_000);
    expect(server.requestTimeout).toBe(30_000);
    expect(server.keepAliveTimeout).toBe(65_000);
    expect(server.timeout).toBe(30_000); // the progress timeout
    expect(DEFAULT_HTTP_TIMEOUTS.connectionsCheckingInterval).toBe(1_000);
  });

  it('takes each timeout given and keeps the defaults of the rest', () => {
    const server = make({ timeouts: { timeout: 300, keepAliveTimeout: 5_000 } });
    expect(server.timeout).toBe(300);
    expect(server.keepAliveTimeout).toBe(5_000);
    expect(server.headersTimeout).toBe(5_000);
  });

  it('caps connections only when MAX_CONNECTIONS is set, and counts every header', () => {
    expect(make({ maxConnections: 64 }).maxConnections).toBe(64);
    const uncapped = make();
    expect(uncapped.maxConnections).not.toBe(0);
    expect(uncapped.maxHeadersCount).toBe(0);
  });

  it('tells onDrop once, on the first connection Node drops', () => {
    let drops = 0;
    const server = make({ maxConnections: 1, onDrop: () => drops++ });
    server.emit('drop', {});
    server.emit('drop', {});
    expect(drops).toBe(1);
  });
});
