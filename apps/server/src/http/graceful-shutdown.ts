import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** How long a shutdown waits for in-flight requests before closing their connections. */
const SHUTDOWN_GRACE_MS = 10_000;
/** While shutting down, how often connections that have become idle are closed. */
const IDLE_SWEEP_MS = 100;

/** The open connections of an HTTP server, for answering in order and shutting down. */
export interface ConnectionTracker {
  /** The response being written on `socket` (HTTP/1.1 answers one request at a time). */
  answering(socket: Duplex): ServerResponse | undefined;
  /**
   * Stops accepting and resolves once every connection is closed: idle ones at once, busy
   * ones when their response is finished (it says `Connection: close`), all after a grace
   * period of 10 s.
   */
  shutdown(): Promise<void>;
}

/**
 * Tracks `server`'s connections and the response on each. Keep-alive connections outlive a
 * request by the keep-alive timeout (65 s): on shutdown, the responses still in progress (and
 * any request that slips in) say `Connection: close`, so their connections end with them.
 * The set holds connections, added and removed once per connection, not each response: a
 * long-lived set that every response passed through kept whole requests alive past
 * young-generation garbage collections.
 *
 * @example
 * const connections = trackConnections(server);
 * process.once('SIGTERM', () => connections.shutdown().then(() => store.close()));
 */
export function trackConnections(server: Server): ConnectionTracker {
  const connections = new Set<Duplex>();
  const answering = new WeakMap<Duplex, ServerResponse>();
  let stopping = false;
  server.on('connection', (socket: Duplex) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    answering.set(socket, response);
    if (stopping) response.setHeader('Connection', 'close');
    response.once('close', () => {
      if (answering.get(socket) === response) answering.delete(socket);
    });
  });
  let stopped: Promise<void> | undefined;
  const shutdown = () => {
    stopped ??= (async () => {
      stopping = true;
      for (const socket of connections) {
        const response = answering.get(socket);
        if (response === undefined) continue;
        if (!response.headersSent) response.setHeader('Connection', 'close');
        else response.once('finish', () => server.closeIdleConnections());
      }
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Connections that go idle later (a response that was already being written, a request
      // body still being read and discarded after an early error) are closed as they do.
      const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
      const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      await closed;
      clearInterval(sweep);
      clearTimeout(force);
    })();
    return stopped;
  };
  return { answering: (socket) => answering.get(socket), shutdown };
}
