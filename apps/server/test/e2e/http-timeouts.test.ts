import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSocket, receivedUntilClose, statusLineOf } from '../support/raw-socket.ts';
import { startTestServer, type TestServer } from '../support/start-test-server.ts';

// The HTTP server's own timers (Node's, which no fake clock reaches) against raw sockets on
// 127.0.0.1: these wait real seconds, so they are in the e2e tier. Each is decided by what the
// sockets see (which closes, what is answered), not by a clock or a count of ticks; the e2e
// project's test timeout guards a hang.

// Not a probe: /healthz and /readyz are answered with `Connection: close`.
const GET = 'GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n';

describe('the default HTTP timeouts', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.dispose();
  });

  it('cut a slowloris socket (headers never complete), while an idle keep-alive connection lives on', async () => {
    // The trickler sends a header line every 400 ms and would complete its headers after 75
    // lines (30 s, long past the 5 s headers timeout): a complete request would be answered.
    const slowloris = await openSocket(server.url);
    const answer = receivedUntilClose(slowloris);
    slowloris.write('POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    let lines = 0;
    const trickle = setInterval(() => {
      if (slowloris.destroyed) return;
      lines += 1;
      slowloris.write(lines < 75 ? `X-Trickle-${lines}: x\r\n` : '\r\n');
    }, 400);

    // The keep-alive client completes a request, idles past the headers timeout, then sends another.
    const keepAlive = await openSocket(server.url);
    const first = statusLineOf(keepAlive, GET);
    try {
      expect(await answer).toBe(''); // cut by the server before its headers were complete

      expect(await first).toBe('HTTP/1.1 200 OK');
      expect(keepAlive.destroyed).toBe(false);
      expect(await statusLineOf(keepAlive, GET)).toBe('HTTP/1.1 200 OK');
    } finally {
      clearInterval(trickle);
      slowloris.destroy();
      keepAlive.destroy();
    }
  });
});

describe('configured timeouts', () => {
  let quick: TestServer;
  beforeAll(async () => {
    quick = await startTestServer({
      timeouts: { headersTimeout: 1_000, requestTimeout: 2_000, keepAliveTimeout: 1_500 },
    });
  });
  afterAll(async () => {
    await quick.dispose();
  });

  it('answer 408 in the Error shape to a request whose body trickles in past the request timeout, and close', async () => {
    // 600 body bytes every 200 ms of the 60,000 announced (pieces large enough not to be
    // refused for their size): complete only after 20 s.
    const socket = await openSocket(quick.url);
    const answer = receivedUntilClose(socket);
    socket.write(
      'POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        `Authorization: Bearer ${quick.token}\r\nContent-Length: 60000\r\n\r\n{"id": 1, "name": "`,
    );
    const trickle = setInterval(() => {
      if (socket.destroyed) return;
      socket.write('a'.repeat(600));
    }, 200);
    try {
      const text = await answer;
      expect(text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(text).toMatch(/\r\nConnection: close\r\n/i);
      expect(text).toMatch(
        /\r\n\r\n\{"error":40801,"message":"Request body did not arrive within 2 s"\}$/,
      );
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
  });

  it('close an idle keep-alive connection after the keep-alive timeout', async () => {
    const socket = await openSocket(quick.url);
    const closed = receivedUntilClose(socket);
    expect(await statusLineOf(socket, GET)).toBe('HTTP/1.1 200 OK');
    await closed; // the server closes it; the client never does
    expect(socket.destroyed).toBe(true);
  });

  it('leave a connection open while it is in use', async () => {
    const socket = await openSocket(quick.url);
    try {
      for (let i = 0; i < 6; i++) {
        // Each pause is a fifth of the 1.5 s keep-alive timeout, the total is over it.
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(await statusLineOf(socket, GET)).toBe('HTTP/1.1 200 OK');
      }
    } finally {
      socket.destroy();
    }
  });
});
