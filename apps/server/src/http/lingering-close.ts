import type { IncomingMessage, Server } from 'node:http';
import { Socket } from 'node:net';
import type { Connections } from './connection-tracker.ts';

/** A body announced (`Content-Length`) as larger than this is not drained: closed at once. */
export const LINGER_MAX_BYTES = 16 * 1024 * 1024;

/**
 * nginx's lingering close for Node's HTTP server. An answer that closes its connection while
 * the request's body is still arriving (a 401, 413, 415 or 429 sent before the body was read; a
 * 400 or 408 for a body that broke or stalled) would be followed by Node destroying the socket
 * with unread bytes in it: the kernel resets it, and a client still sending (fetch, curl) loses
 * the answer. Instead the server's side ends (FIN) and the rest of the body is read and dropped
 * until it is complete, the client closes, or `lingerMs` pass; a body announced as larger than
 * `LINGER_MAX_BYTES` is not drained. Nothing is kept, so memory stays bounded.
 *
 * @example
 * lingerOnClose(server, trackConnections(server), 5_000); // see http-server.ts
 */
export function lingerOnClose(
  server: Server,
  connections: Pick<Connections, 'answering'>,
  lingerMs: number,
): void {
  server.on('connection', (socket: Socket) => {
    // Node's HTTP server ends a `Connection: close` response's socket with `destroySoon()`,
    // while the response being finished is still the socket's (its `close` comes a tick later).
    // Node has no public hook between the answer and that close: this replacement is the one
    // reach into how Node ends a connection, and `lingering-close.test.ts` fails first if a
    // Node version ends it another way.
    socket.destroySoon = () => {
      const request = connections.answering(socket)?.req;
      if (
        request === undefined ||
        request.complete ||
        !socket.readable ||
        lingerMs <= 0 ||
        announcedTooLarge(request)
      ) {
        Socket.prototype.destroySoon.call(socket);
        return;
      }
      linger(socket, request, lingerMs);
    };
  });
}

function linger(socket: Socket, request: IncomingMessage, lingerMs: number): void {
  socket.end();
  const close = () => socket.destroy();
  const timer = setTimeout(close, lingerMs);
  socket.once('close', () => clearTimeout(timer));
  // The client closed its side, or its body is complete: nothing is left to read.
  socket.once('end', close);
  request.once('end', close);
  // Its reader may have paused it when it refused the body (Node discards what then arrives).
  request.resume();
}

/** A body announced as larger than `LINGER_MAX_BYTES`: not worth reading to the end. */
function announcedTooLarge(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return length !== undefined && Number(length) > LINGER_MAX_BYTES;
}
