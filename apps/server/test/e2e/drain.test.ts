import { once } from 'node:events';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openSocket, receivedUntilClose, statusLineOf } from '../support/raw-socket.ts';
import { startTestServer, type TestServer } from '../support/start-test-server.ts';

// The drain of the real server (server.ts → drain.ts, Koa answering) on 127.0.0.1, with
// SHUTDOWN_DELAY_MS's timer faked (the sockets are real). test/e2e/shutdown-under-load.test.ts
// and signals.test.ts drain a server process under load and on signals.

const GET = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;

let server: TestServer | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const socket of sockets) socket.destroy();
  server?.server.closeAllConnections();
  await server?.dispose();
  server = undefined;
});

async function socketTo(url: string): Promise<Socket> {
  const socket = await openSocket(url);
  sockets.push(socket);
  return socket;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('the drain', () => {
  it('answers /readyz 503 in the Error shape during SHUTDOWN_DELAY_MS while keep-alive clients are served; then stops accepting, closes idle connections and ends answers with Connection: close', async () => {
    server = await startTestServer({ shutdownDelayMs: 5_000 });
    const { url } = server;
    const client = await socketTo(url); // a keep-alive client from before the signal
    expect(await statusLineOf(client, GET('/healthz'))).toBe('HTTP/1.1 200 OK');
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const stopped = server.close();

    const probe = await socketTo(url); // still accepted: the listener closes after the delay
    const probeAnswer = receivedUntilClose(probe);
    probe.write(GET('/readyz').replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'));
    const text = await probeAnswer;
    expect(text).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(text).toMatch(/\r\nRetry-After: \d+\r\n/i);
    expect(text).toMatch(/\r\n\r\n\{"error":50301,"message":"Not ready: shutting down"\}$/);

    // During the delay the client keeps its connection for its next request.
    const during = await new Promise<string>((resolve) => {
      client.once('data', (chunk: Buffer) => resolve(chunk.toString()));
      client.write(GET('/healthz'));
    });
    expect(during).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: keep-alive\r\n/i);
    // A create in flight when the listener closes: headers and part of its body sent.
    const busy = await socketTo(url);
    const body = '{"id": 7, "name": "Late fern"}';
    const busyAnswer = receivedUntilClose(busy);
    const received = once(server.server, 'request');
    busy.write(
      `POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    await received;
    const idleClosed = receivedUntilClose(client);

    vi.advanceTimersByTime(5_000);
    while (server.server.listening) await turn();
    await expect(openSocket(url)).rejects.toThrow(/ECONNREFUSED/);
    expect(await idleClosed).toBe(''); // idle: closed by `server.close()` (Node 19 and later)
    busy.write(body.slice(10));
    const answer = await busyAnswer;
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(answer).toMatch(/\{"name":"Late fern"\}$/);
    await stopped;
  });

  it('closes what is still open SHUTDOWN_GRACE_MS (8 s) after the delay', async () => {
    server = await startTestServer();
    // Headers never complete: the request is under way, so `server.close()` leaves it open.
    const slow = await socketTo(server.url);
    const slowClosed = receivedUntilClose(slow);
    slow.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    await turn();
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const stopped = server.close();
    while (server.server.listening) await turn();
    vi.advanceTimersByTime(7_900);
    await turn();
    expect(slow.destroyed).toBe(false);
    vi.advanceTimersByTime(200);
    expect(await slowClosed).toBe('');
    await stopped;
  });
});
