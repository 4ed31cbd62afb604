import { createServer, type Server, type Socket } from 'node:net';

// A stand-in instance for the proxies' own answers: real HTTP on 127.0.0.1 that answers the
// proxies' health checks (/readyz, /healthz) with 200, and every other request as its mode
// says, recording each one's request line (so that a test can say what reached it).

/** `ok`: 200 to everything; `close`: closes the connection without an answer (as an instance
 * that crashed on the request); `silent`: no answer, the connection left open. */
export type UpstreamMode = 'ok' | 'close' | 'silent';

export interface CannedUpstream {
  /** The request lines of the requests other than health checks, in arrival order. */
  readonly requests: readonly string[];
  /** Their heads (request line and header lines), in the same order. */
  readonly heads: readonly string[];
  close(): Promise<void>;
}

const HEALTH = /^GET \/(readyz|healthz) /;

/** Listens on 127.0.0.1:`port` (from `freePort`) and answers as `mode` says. */
export async function startCannedUpstream(
  port: number,
  mode: UpstreamMode,
): Promise<CannedUpstream> {
  const requests: string[] = [];
  const heads: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      for (let end = received.indexOf('\r\n\r\n'); end >= 0; end = received.indexOf('\r\n\r\n')) {
        // Requests without a body only (what the tests send on to an instance).
        const head = received.slice(0, end);
        received = received.slice(end + 4);
        const healthCheck = HEALTH.test(head);
        if (!healthCheck) {
          requests.push(head.split('\r\n')[0] ?? '');
          heads.push(head);
        }
        if (healthCheck || mode === 'ok') {
          socket.write(
            'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok',
          );
        } else if (mode === 'close') {
          socket.destroy();
          return;
        }
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    requests,
    heads,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
