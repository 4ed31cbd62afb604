import { createRequire } from 'node:module';
import pino, { type DestinationStream, type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';

// pino-pretty is loaded only when pretty logs are asked for (a terminal), not in production.
const require = createRequire(import.meta.url);

export interface LoggerOptions {
  /**
   * Human-readable, coloured lines (pino-pretty) instead of JSON: for a developer's terminal.
   * See `wantsPrettyLogs`.
   */
  readonly pretty?: boolean;
  /** Where lines are written; stdout by default. */
  readonly destination?: DestinationStream;
}

/**
 * The service's logger: JSON lines on stdout (pino), or pretty lines for a terminal; `redact`
 * guards against an accidental token.
 *
 * @example
 * const logger = createLogger('info', { pretty: wantsPrettyLogs(config.production, process.stdout.isTTY) });
 */
export function createLogger(level: string, options: LoggerOptions = {}): Logger {
  const settings = {
    level,
    base: { service: 'plant-store' },
    redact: ['req.headers.authorization', 'headers.authorization', 'authorization', 'token'],
  };
  if (options.pretty) {
    const pretty: typeof PinoPretty = require('pino-pretty');
    return pino(
      settings,
      pretty({
        colorize: options.destination === undefined,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname,service',
        sync: true,
        ...(options.destination ? { destination: options.destination } : {}),
      }),
    );
  }
  if (options.destination) return pino(settings, options.destination);
  // stdout written asynchronously in 16 KiB batches (pino's asynchronous logging): one write
  // per ~70 request lines. pino writes the rest at exit, and a timer every second; a hard kill
  // can lose that last second of lines.
  const logger = pino(
    settings,
    pino.destination({ dest: 1, minLength: 16_384, maxWrite: 65_536, sync: false }),
  );
  setInterval(() => logger.flush(), STDOUT_FLUSH_INTERVAL_MS).unref();
  return logger;
}

/** Longest time a line logged to stdout waits in the buffer. */
const STDOUT_FLUSH_INTERVAL_MS = 1000;

/**
 * Pretty logs only for a person: stdout is a terminal and this is not production. Anything
 * else (a pipe, a file, a log collector) gets JSON lines.
 *
 * @example
 * wantsPrettyLogs(false, process.stdout.isTTY); // true in a developer's terminal
 */
export function wantsPrettyLogs(production: boolean, stdoutIsTty: boolean | undefined): boolean {
  return !production && stdoutIsTty === true;
}
