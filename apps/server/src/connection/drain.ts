import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';
import { contract, ERROR_MESSAGES } from '@plant-store/schema';
import { ApiError } from '../http/api-error.ts';
import { errorBodyJson } from '../http/error-responder.ts';
import { STORE_RETRY_AFTER_SECONDS } from '../http/to-api-error.ts';
import type { Connections } from './fair-share.ts';

const READINESS_PATH = contract.getReadiness.path;
const PROBE_PATHS = new Set<string>([contract.getHealth.path, READINESS_PATH]);

/** The signals that start a drain: SIGTERM (supervisors), SIGINT (Ctrl-C), SIGHUP (a terminal). */
export const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/**
 * How long a drain waits, after SHUTDOWN_DELAY_MS, for in-flight requests before it closes every
 * connection: below main.ts's bound on the whole shutdown (10 s: store and logs included).
 */
export const SHUTDOWN_GRACE_MS = 8_000;
/** While draining, how often connections are looked at for having been idle long enough. */
const SWEEP_MS = 50;

export interface DrainOptions {
  /** `/readyz` answers 503 this long before the listener closes (SHUTDOWN_DELAY_MS). */
  readonly delayMs?: number;
  /**
   * Once the listener is closed, an idle keep-alive connection is closed after this long with
   * nothing received: a request may be on its way to it (1 s).
   */
  readonly idleGraceMs?: number;
}

export interface Drain {
  /**
   * Called first for each request: answers `/readyz` 503 while draining (returns true), and
   * decides `Connection: close` for answers that are not errors (those: `answerError`): probes
   * (a caller without a credential cannot hold connections with them), and every answer once
   * the listener is closed.
   */
  answers(request: IncomingMessage, response: ServerResponse): boolean;
  /**
   * `/readyz` answers 503 while everything else is served as before, keep-alive included; after
   * `delayMs` the listener stops accepting, answers say `Connection: close`, idle connections
   * close after `idleGraceMs`, and SHUTDOWN_GRACE_MS later whatever is left. Resolves once
   * every connection is closed.
   */
  shutdown(): Promise<void>;
}

/**
 * The drain of `server`. Keep-alive connections stay open until the listener closes, so that a
 * client sends its next request on the connection it has rather than on a new one that could
 * be refused; after that a new connection is refused.
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

  // Since when each connection has been idle, and its bytes read then (more since: a request
  // is arriving). One that has sent nothing yet is arriving too (the header timeout cuts it).
  const idle = new WeakMap<object, { since: number; bytesRead: number }>();
  const closeLongIdle = () => {
    const now = performance.now();
    for (const socket of connections.open) {
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
 * Stops accepting. `http.Server#close()` also closes every idle keep-alive connection at once,
 * and a request just sent on one meets a reset; `net.Server#close()`, which it extends, only
 * stops accepting. The one reach past the HTTP server's API: `drain.test.ts` guards it.
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
