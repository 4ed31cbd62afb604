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
 * The service's logger: structured JSON lines on stdout (pino), or pretty lines for a
 * terminal. Request logs never carry the Authorization header, the token or the body; `redact`
 * guards against an accidental one. Errors logged as `err` keep their type, message and stack.
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
  return options.destination ? pino(settings, options.destination) : pino(settings);
}

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
