import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';
import { contract, ERROR_MESSAGES } from '@plant-store/schema';
import { ApiError } from '../http/api-error.ts';
import { writeErrorAnswer } from '../http/error-responder.ts';
import { STORE_RETRY_AFTER_SECONDS } from '../http/to-api-error.ts';
import type { Connections } from './fair-share.ts';

const READINESS_PATH = contract.getReadiness.path;
const PROBE_PATHS = new Set<string>([contract.getHealth.path, READINESS_PATH]);

export const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
/** After SHUTDOWN_DELAY_MS, when whatever is still open is closed (main.ts bounds all at 10 s). */
const SHUTDOWN_GRACE_MS = 8_000;
const SWEEP_MS = 50;

export interface DrainOptions {
  /** `/readyz` answers 503 this long before the listener closes (SHUTDOWN_DELAY_MS). */
  readonly delayMs?: number;
  /** Once the listener is closed, an idle connection closes after this long (1 s). */
  readonly idleGraceMs?: number;
  /** In a cluster worker: resolves once every worker stopped accepting (cluster.ts). */
  readonly othersStopped?: () => Promise<void>;
}

export interface Drain {
  /** First for each request: true when it answered `/readyz` 503; sets `Connection: close`. */
  answers(request: IncomingMessage, response: ServerResponse): boolean;
  shutdown(): Promise<void>;
}

/**
 * `/readyz` 503 for `delayMs`, all else served; then the listener closes, answers close their
 * connection, idle ones close after `idleGraceMs`, the rest SHUTDOWN_GRACE_MS later. Keep-alive
 * connections stay open until the listener closes, so a client's next request is not refused.
 * @example
 * const drain = drainOnShutdown(server, connections, { delayMs: 5_000 });
 */
export function drainOnShutdown(
  server: Server,
  connections: Connections,
  options: DrainOptions = {},
): Drain {
  const idleGraceMs = options.idleGraceMs ?? 1_000;
  let draining = false;
  let closing = false;
  // Since when each connection is idle, and its bytesRead then (more since: a request arrives).
  const idle = new WeakMap<object, { since: number; bytesRead: number }>();
  const closeLongIdle = () => {
    const now = performance.now();
    for (const socket of connections.open) {
      if (socket.bytesRead === 0) continue; // nothing sent yet: the header timeout cuts it
      const seen = idle.get(socket);
      const busy = connections.answering(socket).size > 0;
      if (busy || seen === undefined || seen.bytesRead !== socket.bytesRead) {
        idle.set(socket, { since: now, bytesRead: socket.bytesRead });
      } else if (now - seen.since >= idleGraceMs) socket.destroy();
    }
  };

  let stopped: Promise<void> | undefined;
  const shutdown = async () => {
    draining = true;
    if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
    const force = setTimeout(() => {
      for (const socket of connections.open) socket.destroy();
    }, SHUTDOWN_GRACE_MS);
    // `http.Server#close()` would also close idle keep-alive connections, resetting a request
    // just sent on one (drain.test.ts guards it).
    if (server.listening) NetServer.prototype.close.call(server);
    await options.othersStopped?.();
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
  };
  return {
    answers(request, response) {
      if (closing || PROBE_PATHS.has(request.url ?? '')) response.setHeader('Connection', 'close');
      if (!draining || request.url !== READINESS_PATH) return false;
      const error = new ApiError('storeUnavailable', ERROR_MESSAGES.storeUnavailable.shuttingDown, {
        'Retry-After': String(STORE_RETRY_AFTER_SECONDS),
      });
      writeErrorAnswer(response, error);
      return true;
    },
    shutdown() {
      stopped ??= shutdown();
      return stopped;
    },
  };
}
