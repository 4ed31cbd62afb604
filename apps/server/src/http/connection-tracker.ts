import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** The open connections of an HTTP server and the response being written on each. */
export interface Connections {
  /** The response being written on `socket` (HTTP/1.1 answers one request at a time). */
  answering(socket: Duplex): ServerResponse | undefined;
  /** Every open connection, oldest first. */
  readonly open: ReadonlySet<Socket>;
  /** Resolves once no connection is open. */
  allClosed(): Promise<void>;
  /**
   * Serves a connection accepted by another process (a cluster worker's, handed over by its
   * primary), counted against the cap as one accepted here.
   */
  inject(socket: Socket): void;
}

/** The connection cap (MAX_CONNECTIONS, kept below the descriptor limit). */
export interface ConnectionCap {
  /** At most this many connections are open; 0 for no cap. */
  readonly max: number;
  /** Called the first time a connection comes over the cap. */
  readonly onReached?: () => void;
}

/**
 * Tracks `server`'s connections (the set is written once per connection, the map once per
 * request) and caps them. Node's own `maxConnections` only refuses a connection over it, and
 * its `closeIdleConnections()` closes a connection whose request has not arrived yet too: here
 * a connection over the cap closes the oldest one with no request being answered, and is
 * served; only when every connection is busy is it closed at once.
 *
 * @example
 * const connections = trackConnections(server, { max: 900 });
 */
export function trackConnections(server: Server, cap: ConnectionCap = { max: 0 }): Connections {
  const open = new Set<Socket>();
  const answering = new WeakMap<Duplex, ServerResponse>();
  let emptied: (() => void) | undefined;
  let reached = false;

  const makeRoom = (newcomer: Socket) => {
    if (!reached) cap.onReached?.();
    reached = true;
    for (const socket of open) {
      if (socket !== newcomer && !socket.destroyed && !answering.has(socket)) {
        socket.destroy(); // the oldest idle one
        return;
      }
    }
    newcomer.destroy(); // every other connection is busy
  };

  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => {
      open.delete(socket);
      if (open.size === 0) emptied?.();
    });
    if (cap.max > 0 && open.size > cap.max) makeRoom(socket);
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    answering.set(socket, response);
    response.once('close', () => {
      if (answering.get(socket) === response) answering.delete(socket);
    });
  });

  let injected = false;
  return {
    answering: (socket) => answering.get(socket),
    open,
    allClosed: () =>
      new Promise<void>((resolve) => {
        emptied = resolve;
        if (open.size === 0) resolve();
      }),
    inject: (socket) => {
      // Node starts an HTTP server's connection checks (the header and request timeouts) when
      // it emits 'listening': a server that never listens, fed only injected connections,
      // emits it once itself (guarded by graceful-shutdown.test.ts: "serves connections injected from elsewhere").
      if (!injected) server.emit('listening');
      injected = true;
      server.emit('connection', socket);
    },
  };
}
