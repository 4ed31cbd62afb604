import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { contract, ERROR_MESSAGES } from '@plant-store/schema';
import { ApiError } from './api-error.ts';
import { STORE_RETRY_AFTER_SECONDS } from './to-api-error.ts';

const HEALTH_PATH = contract.getHealth.path;
const READINESS_PATH = contract.getReadiness.path;

/** How long a shutdown waits for in-flight requests before closing their connections. */
const SHUTDOWN_GRACE_MS = 10_000;
/** While draining, how often connections are looked at for having been idle long enough. */
const SWEEP_MS = 50;

/** How a server drains on shutdown. */
export interface DrainOptions {
  /** `/readyz` answers 503 this long before the listener closes (SHUTDOWN_DELAY_MS). */
  readonly delayMs?: number;
  /**
   * While draining, an idle keep-alive connection is closed once it has been idle this long
   * with nothing received: a client may have sent a request toward it that is not here yet.
   */
  readonly idleGraceMs?: number;
  /**
   * Instead of `delayMs`, for a server that never listens (a cluster worker): the drain goes
   * on once this resolves (its primary has stopped accepting and handed over every connection).
   */
  readonly handedOver?: Promise<void>;
}

/** The open connections of an HTTP server, for answering in order and shutting down. */
export interface ConnectionTracker {
  /** The response being written on `socket` (HTTP/1.1 answers one request at a time). */
  answering(socket: Duplex): ServerResponse | undefined;
  /**
   * Serves a connection accepted by another process (a cluster worker's, handed over by its
   * primary), counted against `server.maxConnections` as Node counts those it accepts: over
   * it the connection is closed at once and `drop` emitted.
   */
  inject(socket: Socket): void;
  /**
   * Drains: `/readyz` answers 503 and every answer says `Connection: close`; after `delayMs`
   * the listener (if any) stops accepting, idle connections close once idle for
   * `idleGraceMs`, busy ones when their answer is sent; after 10 s whatever is left is closed.
   * Resolves once every connection, accepted or injected, is closed.
   */
  shutdown(): Promise<void>;
}

/**
 * Serves `handle` on `server` (its one `request` listener) and tracks its connections and the
 * response on each (the set is written once per connection, the map once per request).
 *
 * Probes (`/healthz`, `/readyz`) are answered with `Connection: close`: a caller without a
 * credential cannot keep connections open with them.
 *
 * @example
 * const connections = serveTracked(server, app.callback(), { delayMs: 5_000 });
 * process.once('SIGTERM', () => connections.shutdown().then(() => store.close()));
 */
export function serveTracked(
  server: Server,
  handle: RequestListener,
  options: DrainOptions = {},
): ConnectionTracker {
  const idleGraceMs = options.idleGraceMs ?? 1_000;
  const connections = new Set<Socket>();
  const answering = new WeakMap<Duplex, ServerResponse>();
  let draining = false;
  let allClosed: (() => void) | undefined;
  server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => {
      connections.delete(socket);
      if (connections.size === 0) allClosed?.();
    });
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    answering.set(socket, response);
    response.once('close', () => {
      if (answering.get(socket) === response) answering.delete(socket);
    });
    const url = request.url;
    if (url === HEALTH_PATH || url === READINESS_PATH) response.setHeader('Connection', 'close');
    if (draining) {
      response.setHeader('Connection', 'close');
      if (url === READINESS_PATH) return answerShuttingDown(response);
    }
    handle(request, response);
  });

  // While draining: since when each connection has been seen idle, and its bytes read then
  // (more read since: a request is arriving, its headers not complete yet).
  const idle = new WeakMap<Socket, { since: number; bytesRead: number }>();
  const closeLongIdle = () => {
    const now = performance.now();
    for (const socket of connections) {
      const seen = idle.get(socket);
      if (answering.has(socket) || seen === undefined || seen.bytesRead !== socket.bytesRead) {
        idle.set(socket, { since: now, bytesRead: socket.bytesRead });
      } else if (now - seen.since >= idleGraceMs) {
        socket.destroy();
      }
    }
  };

  let stopped: Promise<void> | undefined;
  const shutdown = () => {
    stopped ??= (async () => {
      draining = true;
      for (const socket of connections) {
        const response = answering.get(socket);
        if (response !== undefined && !response.headersSent) {
          response.setHeader('Connection', 'close');
        }
      }
      if (options.handedOver) await options.handedOver;
      else if ((options.delayMs ?? 0) > 0) {
        await new Promise((resolve) => setTimeout(resolve, options.delayMs));
      }
      if (server.listening) stopAccepting(server);
      closeLongIdle();
      const sweep = setInterval(closeLongIdle, SWEEP_MS);
      const force = setTimeout(() => {
        for (const socket of connections) socket.destroy();
      }, SHUTDOWN_GRACE_MS);
      await new Promise<void>((resolve) => {
        allClosed = resolve;
        if (connections.size === 0) resolve();
      });
      clearInterval(sweep);
      clearTimeout(force);
    })();
    return stopped;
  };

  let injected = false;
  const inject = (socket: Socket) => {
    // Node starts an HTTP server's connection checks (the header and request timeouts,
    // `closeIdleConnections`) when it emits 'listening': a server that never listens, fed
    // only injected connections, emits it once itself (guarded by graceful-shutdown.test.ts).
    if (!injected) server.emit('listening');
    injected = true;
    if (server.maxConnections && connections.size >= server.maxConnections) {
      socket.destroy();
      server.emit('drop');
      return;
    }
    server.emit('connection', socket);
  };
  return { answering: (socket) => answering.get(socket), inject, shutdown };
}

/**
 * Stops accepting connections. Node's own `http.Server#close()` also closes every idle
 * keep-alive connection at once (Node ≥ 19), and a request a client has just sent on one then
 * meets a reset; `net.Server#close()`, the method it extends, only stops accepting. The one
 * reach past the HTTP server's own API: guarded by `graceful-shutdown.test.ts` ("keeps an idle
 * keep-alive connection open …").
 */
function stopAccepting(server: Server): void {
  NetServer.prototype.close.call(server);
}

/** `/readyz` while draining: load balancers stop sending here. */
function answerShuttingDown(response: ServerResponse): void {
  const error = new ApiError('storeUnavailable', ERROR_MESSAGES.storeUnavailable.shuttingDown);
  const body = JSON.stringify(error.toBody());
  response.writeHead(error.status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    'Retry-After': String(STORE_RETRY_AFTER_SECONDS),
  });
  response.end(body);
}
