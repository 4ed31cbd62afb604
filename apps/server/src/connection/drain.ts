import type { Server } from 'node:http';
import type { Lifecycle } from '../handlers.ts';

export const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;
/** After SHUTDOWN_DELAY_MS, how long requests under way may take (main.ts bounds all at 10 s). */
const SHUTDOWN_GRACE_MS = 8_000;

/**
 * The shutdown on Node's public API: `/readyz` 503 for `delayMs` (all else served, keep-alive
 * connections kept), then `server.close()` (idle connections close too), and what is still open
 * after SHUTDOWN_GRACE_MS is closed (`closeAllConnections`).
 * @example
 * const lifecycle = { draining: false, closing: false };
 * await drainOnShutdown(server, lifecycle, 5_000);
 */
export async function drainOnShutdown(
  server: Server,
  lifecycle: Lifecycle,
  delayMs = 0,
): Promise<void> {
  lifecycle.draining = true;
  if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
  lifecycle.closing = true;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
  await closed;
  clearTimeout(force);
}
