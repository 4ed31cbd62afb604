import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';
import { contract, ERROR_MESSAGES } from '@plant-store/schema';
import { ApiError } from '../http/api-error.ts';
import { errorBodyJson } from '../http/error-responder.ts';
import { STORE_RETRY_AFTER_SECONDS } from '../http/to-api-error.ts';
import type { Connections } from './fair-share.ts';

const READINESS_PATH = contract.getReadiness.path;
const PROBE_PATHS = new Set<string>([contract.getHealth.path, READINESS_PATH]);

/**
 * The signals that start a drain, in a single process and in a cluster's primary alike:
 * SIGTERM (supervisors), SIGINT (Ctrl-C) and SIGHUP (a closing terminal, some supervisors).
 */
export const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/**
 * How long a drain waits, after SHUTDOWN_DELAY_MS, for the accept queue and in-flight requests
 * before it closes every connection: below main.ts's bound on the whole shutdown
 * (SHUTDOWN_BOUND_MS, 10 s), which also covers closing the store and writing out the logs.
 */
export const SHUTDOWN_GRACE_MS = 8_000;
/** While draining, how often connections are looked at for having been idle long enough. */
const SWEEP_MS = 50;

/** How a server drains on shutdown. */
export interface DrainOptions {
  /** `/readyz` answers 503 this long before the listener closes (SHUTDOWN_DELAY_MS). */
  readonly delayMs?: number;
  /**
   * Once the listener is closed, an idle keep-alive connection is closed once it has been idle
   * this long with nothing received: a client may have sent a request toward it that is not
   * here yet.
   */
  readonly idleGraceMs?: number;
}

/** The drain of one HTTP server. */
export interface Drain {
  /**
   * Called first for each request: answers it when the drain does (`/readyz` once draining:
   * 503) and returns true. Decides `Connection: close` for the answers that are not errors:
   * probes (a caller without a credential cannot hold connections with them) and every answer
   * once the listener is closed (errors: `answerError`).
   */
  answers(request: IncomingMessage, response: ServerResponse): boolean;
  /**
   * Drains: `/readyz` answers 503 while everything else is served as before (keep-alive
   * included); after `delayMs` the listener (if any) stops accepting, every answer from then on says `Connection: close`, idle connections close
   * once idle for `idleGraceMs`; SHUTDOWN_GRACE_MS after the delay whatever is left is closed.
   * Resolves once every connection is closed.
   */
  shutdown(): Promise<void>;
}

/**
 * The drain of `server`, whose connections `connections` tracks. Keep-alive connections stay
 * open until the listener closes, so that a keep-alive client (or a balancer's pooled
 * connection) sends its next request on the connection it has rather than a new one, which
 * could wait in the kernel's accept queue and be reset when the listener closes; after that, a
 * new connection is refused.
 *
 * @example
 * const drain = drainOnShutdown(server, connections, { delayMs: 5_000 });
 * process.once('SIGTERM', () => drain.shutdown().then(() => store.close()));
 */
export function drainOnShutdown(
  server: Server,
  connections: Connections,
  options: DrainOptions = {},
): Drain {
  const idleGraceMs = options.idleGraceMs ?? 1_000;
  let draining = false;
  let closing = false;

  // Since when each connection has been seen idle, and its bytes read then (more read since:
  // a request is arriving, its headers not complete yet).
  const idle = new WeakMap<object, { since: number; bytesRead: number }>();
  const closeLongIdle = () => {
    const now = performance.now();
    for (const socket of connections.open) {
      // A connection that has sent nothing yet is arriving, not idle: its first request comes
      // (Node's header timeout cuts one that never sends).
      if (socket.bytesRead === 0) continue;
      const seen = idle.get(socket);
      if (
        connections.answering(socket).size > 0 ||
        seen === undefined ||
        seen.bytesRead !== socket.bytesRead
      ) {
        idle.set(socket, { since: now, bytesRead: socket.bytesRead });
      } else if (now - seen.since >= idleGraceMs) {
        socket.destroy();
      }
    }
  };

  let stopped: Promise<void> | undefined;
  return {
    answers(request, response) {
      if (closing || PROBE_PATHS.has(request.url ?? '')) response.setHeader('Connection', 'close');
      if (!draining || request.url !== READINESS_PATH) return false;
      answerShuttingDown(response);
      return true;
    },
    shutdown() {
      stopped ??= (async () => {
        draining = true;
        if ((options.delayMs ?? 0) > 0) {
          await new Promise((resolve) => setTimeout(resolve, options.delayMs));
        }
        const force = setTimeout(() => {
          for (const socket of connections.open) socket.destroy();
        }, SHUTDOWN_GRACE_MS);
        if (server.listening) stopAccepting(server);
        closing = true;
        for (const socket of connections.open) {
          for (const response of connections.answering(socket)) {
            if (!response.headersSent) response.setHeader('Connection', 'close');
          }
        }
        closeLongIdle();
        const sweep = setInterval(closeLongIdle, SWEEP_MS);
        await connections.allClosed();
        clearInterval(sweep);
        clearTimeout(force);
      })();
      return stopped;
    },
  };
}

/**
 * Stops accepting connections. Node's own `http.Server#close()` also closes every idle
 * keep-alive connection at once (Node ≥ 19), and a request a client has just sent on one then
 * meets a reset; `net.Server#close()`, the method it extends, only stops accepting. The one
 * reach past the HTTP server's own API: guarded by `drain.test.ts` ("keeps an idle
 * keep-alive connection open …").
 */
function stopAccepting(server: NetServer): void {
  NetServer.prototype.close.call(server);
}

/** `/readyz` while draining: load balancers stop sending here. */
function answerShuttingDown(response: ServerResponse): void {
  const error = new ApiError('storeUnavailable', ERROR_MESSAGES.storeUnavailable.shuttingDown);
  const body = errorBodyJson(error);
  response.writeHead(error.status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    'Retry-After': String(STORE_RETRY_AFTER_SECONDS),
  });
  response.end(body);
}
