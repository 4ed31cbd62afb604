import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openSocket, receivedUntilClose, statusLineOf } from '../../test/support/raw-socket.ts';
import type { Drain, DrainOptions } from './drain.ts';
import { createHttpServer } from './http-server.ts';

// The drain of the API's HTTP server (http-server.ts) on 127.0.0.1, with a plain handler and
// the clock faked (the sockets are real). test/e2e/shutdown-under-load.test.ts drains a server
// process under load.

const GET = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;

let server: Server | undefined;
const sockets: Socket[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const socket of sockets) socket.destroy();
  server?.closeAllConnections();
  server?.close();
});

async function serve(options: DrainOptions): Promise<{ url: string; connections: Drain }> {
  const made = createHttpServer((_request, response) => response.end('ok'), { drain: options });
  server = made.server;
  const connections = made.drain;
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, connections };
}

async function socketTo(url: string): Promise<Socket> {
  const socket = await openSocket(url);
  sockets.push(socket);
  return socket;
}

/** Lets the event loop turn (the sockets are real) while the fake clock stands still. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** Once the drain has closed the listener (after a turn of the event loop that accepted nothing). */
async function listenerClosed(): Promise<void> {
  while (server?.listening) await turn();
}

describe('a drain', () => {
  it('keeps an idle keep-alive connection open through the grace, answers a request on it with Connection: close, and stops accepting', async () => {
    // Guards Node's behaviour that `stopAccepting` relies on: `net.Server#close` stops
    // accepting without closing idle connections (`http.Server#close` closes them at once).
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'performance'] });
    const { url, connections } = await serve({ idleGraceMs: 1_000 });
    const idle = await socketTo(url);
    expect(await statusLineOf(idle, GET('/plants'))).toBe('HTTP/1.1 200 OK');

    const stopped = connections.shutdown();
    await listenerClosed();
    await expect(openSocket(url)).rejects.toThrow(/ECONNREFUSED/);
    vi.advanceTimersByTime(900);
    await turn();
    expect(idle.destroyed).toBe(false);

    const closed = receivedUntilClose(idle);
    idle.write(GET('/plants'));
    const answer = await closed; // answered, then closed by the server
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    await stopped;
  });

  it('closes a connection once it has been idle for the grace, not one that is receiving a request or has not sent its first', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'performance'] });
    const { url, connections } = await serve({ idleGraceMs: 1_000 });
    const idle = await socketTo(url);
    expect(await statusLineOf(idle, GET('/plants'))).toBe('HTTP/1.1 200 OK');
    const idleClosed = receivedUntilClose(idle);
    const slow = await socketTo(url); // its request's headers trickle in
    const slowAnswer = receivedUntilClose(slow);
    // Connected, its first request not sent yet (a busy client): left to the header timeout.
    const fresh = await socketTo(url);
    await turn();

    const stopped = connections.shutdown();
    await listenerClosed();
    for (const line of ['GET /plants HTTP/1.1\r\n', 'Host: 127.0.0.1\r\n']) {
      slow.write(line);
      await turn();
      vi.advanceTimersByTime(600);
      await turn();
    }
    expect(await idleClosed).toBe(''); // idle 1.2 s: closed
    expect(slow.destroyed).toBe(false); // it kept sending
    expect(fresh.destroyed).toBe(false);
    slow.write('\r\n');
    expect(await slowAnswer).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close\r\n/i);
    const freshAnswer = receivedUntilClose(fresh);
    fresh.write(GET('/plants'));
    expect(await freshAnswer).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close\r\n/i);
    await stopped;
  });

  it('answers /readyz 503 in the Error shape during SHUTDOWN_DELAY_MS and keeps other connections alive; Connection: close only once the listener is closed', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'performance'] });
    const { url, connections } = await serve({ delayMs: 5_000, idleGraceMs: 1_000 });
    const client = await socketTo(url); // a keep-alive client from before the signal
    const stopped = connections.shutdown();

    const probe = await socketTo(url); // still accepted: the listener closes after the delay
    const probeAnswer = receivedUntilClose(probe);
    probe.write(GET('/readyz'));
    const text = await probeAnswer;
    expect(text).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(text).toMatch(/\r\nConnection: close\r\n/i);
    expect(text).toMatch(/\r\n\r\n\{"error":50301,"message":"Not ready: shutting down"\}$/);

    // During the delay the client keeps its connection for its next request: a new one it
    // opened instead could wait in the accept queue and be reset when the listener closes.
    const during = await new Promise<string>((resolve) => {
      client.once('data', (chunk: Buffer) => resolve(chunk.toString()));
      client.write(GET('/plants'));
    });
    expect(during).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: keep-alive\r\n/i);

    vi.advanceTimersByTime(5_000);
    await listenerClosed();
    await expect(openSocket(url)).rejects.toThrow(/ECONNREFUSED/);
    const after = receivedUntilClose(client);
    client.write(GET('/plants'));
    expect(await after).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close\r\n/i);
    await stopped;
  });

  it('answers probes with Connection: close (no idle connections held by probes)', async () => {
    const { url } = await serve({});
    for (const path of ['/healthz', '/readyz']) {
      const socket = await socketTo(url);
      const answer = receivedUntilClose(socket);
      socket.write(GET(path));
      expect(await answer).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close\r\n/i);
    }
  });
});
