import type { Logger } from 'pino';
import { createLogger } from '../../src/observability/logger.ts';

/**
 * The service's logger at level silent, on a destination that drops what it is given: no stdout
 * stream, so nothing of it outlives the test (no exit hooks, however many a worker makes).
 *
 * @example
 * const running = await startServer(config, silentLogger());
 */
export function silentLogger(): Logger {
  return createLogger('silent', { destination: { write: () => undefined } });
}
