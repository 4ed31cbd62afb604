import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/support/start-test-server.ts';
import { DEFAULT_HTTP_TIMEOUTS } from './timeouts.ts';

// The HTTP server's timeouts, measured with raw sockets on 127.0.0.1 against the real server.

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.dispose();
});

function open(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Resolves with the milliseconds from now until the server closes `socket`. */
function closedAfter(socket: Socket): Promise<number> {
  const started = performance.now();
  return new Promise((resolve) => {
    socket.on('error', () => undefined); // a reset is a close too
    socket.once('close', () => resolve(performance.now() - started));
  });
}

/** Sends `request` and resolves with the first complete response's status line. */
function exchange(socket: Socket, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = '';
    const onData = (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const headerEnd = received.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(received)?.[1];
      if (
        headerEnd >= 0 &&
        length !== undefined &&
        received.length >= headerEnd + 4 + Number(length)
      ) {
        socket.off('data', onData);
        resolve(received.split('\r\n')[0] ?? '');
      }
    };
    socket.on('data', onData);
    socket.once('close', () => reject(new Error(`closed after ${JSON.stringify(received)}`)));
    socket.write(request);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('HTTP server timeouts', () => {
  it('are set deliberately on the real server', () => {
    expect(server.server.headersTimeout).toBe(5_000);
    expect(server.server.requestTimeout).toBe(30_000);
    expect(server.server.keepAliveTimeout).toBe(65_000);
    expect(DEFAULT_HTTP_TIMEOUTS.connectionsCheckingIntervalMs).toBe(1_000);
  });

  it('cut a slowloris socket within ~6 s, while an idle keep-alive connection lives on', async () => {
    // Both run at once: the trickler never completes its headers; the keep-alive client
    // completes a request, idles past the headers timeout, then sends another.
    const slowloris = await open(server.url);
    const closed = closedAfter(slowloris);
    let answered = '';
    slowloris.on('data', (chunk: Buffer) => {
      answered += chunk.toString();
    });
    slowloris.write('POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    let line = 0;
    const trickle = setInterval(() => {
      if (!slowloris.destroyed) slowloris.write(`X-Trickle-${line++}: x\r\n`);
    }, 400);

    const keepAlive = await open(server.url);
    const get = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n';
    const first = exchange(keepAlive, get);

    try {
      const elapsed = await closed;
      expect(elapsed).toBeGreaterThanOrEqual(4_500);
      expect(elapsed).toBeLessThan(9_000);
      expect(line).toBeGreaterThan(5); // it kept sending until it was cut
      expect(answered).toBe('');

      expect(await first).toBe('HTTP/1.1 200 OK');
      expect(keepAlive.destroyed).toBe(false);
      expect(await exchange(keepAlive, get)).toBe('HTTP/1.1 200 OK');
    } finally {
      clearInterval(trickle);
      slowloris.destroy();
      keepAlive.destroy();
    }
  }, 15_000);
});

describe('configured timeouts', () => {
  let quick: TestServer;
  beforeAll(async () => {
    quick = await startTestServer({
      timeouts: { headersTimeoutMs: 1_000, requestTimeoutMs: 2_000, keepAliveTimeoutMs: 1_500 },
    });
  });
  afterAll(async () => {
    await quick.dispose();
  });

  it('cut a request whose body trickles in past the request timeout', async () => {
    const socket = await open(quick.url);
    const closed = closedAfter(socket);
    socket.write(
      'POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        `Authorization: Bearer ${quick.token}\r\nContent-Length: 1000\r\n\r\n{"id": 1, "name": "`,
    );
    const trickle = setInterval(() => {
      if (!socket.destroyed) socket.write('a');
    }, 200);
    try {
      const elapsed = await closed;
      expect(elapsed).toBeGreaterThanOrEqual(1_500);
      expect(elapsed).toBeLessThan(5_000);
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
  }, 10_000);

  it('close an idle keep-alive connection after the keep-alive timeout', async () => {
    const socket = await open(quick.url);
    const status = await exchange(socket, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    expect(status).toBe('HTTP/1.1 200 OK');
    const elapsed = await closedAfter(socket);
    expect(elapsed).toBeGreaterThanOrEqual(1_000);
    expect(elapsed).toBeLessThan(4_000);
  }, 10_000);

  it('leave a connection open while it is in use', async () => {
    const socket = await open(quick.url);
    try {
      for (let i = 0; i < 4; i++) {
        await sleep(700); // each pause is under the keep-alive timeout, the total is over it
        expect(await exchange(socket, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')).toBe(
          'HTTP/1.1 200 OK',
        );
      }
    } finally {
      socket.destroy();
    }
  }, 10_000);
});

describe('shutdown with keep-alive connections', () => {
  it('ends in-flight requests with Connection: close instead of waiting out the keep-alive', async () => {
    const closing = await startTestServer();
    const idle = await open(closing.url);
    expect(await exchange(idle, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')).toBe(
      'HTTP/1.1 200 OK',
    );
    const idleClosed = closedAfter(idle);

    // A request in flight: headers and half its body sent when the shutdown starts.
    const busy = await open(closing.url);
    const body = '{"id": 7, "name": "Late fern"}';
    let answer = '';
    busy.on('data', (chunk: Buffer) => {
      answer += chunk.toString();
    });
    const busyClosed = closedAfter(busy);
    busy.write(
      'POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        `Authorization: Bearer ${closing.token}\r\nContent-Length: ${body.length}\r\n\r\n` +
        body.slice(0, 10),
    );
    await sleep(200);
    const started = performance.now();
    const closed = closing.dispose();
    await sleep(200);
    busy.write(body.slice(10));

    expect(await idleClosed).toBeLessThan(1_000);
    await busyClosed;
    await closed;
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(answer).toMatch(/\{"name":"Late fern"\}$/);
  }, 10_000);
});
