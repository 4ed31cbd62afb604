import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { StartupError } from './config.ts';
import { baseUrl, listenOn } from './listen.ts';

// In process and without binding a port: the URL's form, and a refused listen as one start-up
// line. test/e2e/main.test.ts sees a port in use and a HOST that does not resolve.

describe('baseUrl', () => {
  it('is http://address:port, an IPv6 address in brackets', () => {
    expect(baseUrl('127.0.0.1', 3000)).toBe('http://127.0.0.1:3000');
    expect(baseUrl('::1', 8080)).toBe('http://[::1]:8080');
    expect(baseUrl('fd00::2', 80)).toBe('http://[fd00::2]:80');
    expect(baseUrl('localhost', 3000)).toBe('http://localhost:3000');
  });
});

describe('listenOn', () => {
  it("refuses in one StartupError naming the host, the port and Node's reason", async () => {
    const server = createServer();
    const refused = listenOn(server, 70_000, '127.0.0.1');
    await expect(refused).rejects.toBeInstanceOf(StartupError);
    await expect(refused).rejects.toThrow(/^cannot listen on 127\.0\.0\.1:70000: .*70000/);
    expect(server.listening).toBe(false);
  });

  it('keeps the error Node gave as the cause', async () => {
    const error = await listenOn(createServer(), -1, '::1').catch((caught: Error) => caught);
    expect(error).toBeInstanceOf(StartupError);
    expect((error as Error).cause).toMatchObject({ code: 'ERR_SOCKET_BAD_PORT' });
  });
});
