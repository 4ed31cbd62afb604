import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openSocket, receivedUntilClose, statusLineOf } from '../../test/support/raw-socket.ts';
import { trackConnections } from './connection-tracker.ts';

// The cap on a bare Node HTTP server on 127.0.0.1 (real sockets). graceful-shutdown.test.ts
// covers the cap for injected connections; test/e2e/connection-cap.test.ts a capped process.

const GET = 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
let server: Server | undefined;
const sockets: Socket[] = [];
afterEach(() => {
  for (const socket of sockets) socket.destroy();
  server?.closeAllConnections();
  server?.close();
});

async function capped(max: number, handler: Parameters<typeof createServer>[1]) {
  server = createServer(handler);
  const onReached = vi.fn();
  trackConnections(server, { max, onReached });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const connect = async () => {
    const socket = await openSocket(url);
    sockets.push(socket);
    return socket;
  };
  return { connect, onReached };
}

describe('the connection cap', () => {
  it('closes the oldest idle connection to make room, and serves the new one', async () => {
    const { connect, onReached } = await capped(2, (_request, response) => response.end('ok'));
    const first = await connect();
    expect(await statusLineOf(first, GET)).toBe('HTTP/1.1 200 OK');
    const second = await connect();
    expect(await statusLineOf(second, GET)).toBe('HTTP/1.1 200 OK');
    const firstClosed = receivedUntilClose(first);
    const third = await connect();
    expect(await statusLineOf(third, GET)).toBe('HTTP/1.1 200 OK');
    expect(await firstClosed).toBe('');
    expect(second.destroyed).toBe(false);
    expect(onReached).toHaveBeenCalledTimes(1);
  });

  it('closes a new connection at once when every open one is being answered', async () => {
    const { connect } = await capped(1, () => undefined); // never answers
    const busy = await connect();
    busy.write(GET);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const over = await connect();
    expect(await receivedUntilClose(over)).toBe('');
    expect(busy.destroyed).toBe(false);
  });
});
