import { createRequire } from 'node:module';
import pino, { type DestinationStream, type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';
import { LineChunker } from './line-chunker.ts';

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
  if (options.destination) return pino(settings, options.destination);
  // stdout, written asynchronously in chunks of at least 16 KiB: one write per ~80 request
  // lines instead of a blocking write per line, because the request log is on the hot path
  // (the benchmark's ablation case measures its cost). The lines are gathered by LineChunker and written by SonicBoom (pino.destination). Everything
  // gathered is written synchronously when the process exits, also through process.exit; a
  // timer writes out what a quiet server has gathered, so no line waits longer than a second.
  // A hard kill (SIGKILL, power loss) can lose that last second.
  const lines = new LineChunker(
    pino.destination({ dest: 1, sync: false, maxWrite: 4 * STDOUT_CHUNK_LENGTH }),
    STDOUT_CHUNK_LENGTH,
  );
  flushedAtExit(lines);
  setInterval(() => lines.flush(), STDOUT_FLUSH_INTERVAL_MS).unref();
  return pino(settings, lines);
}

/** Characters of log lines gathered before they are written to stdout. */
const STDOUT_CHUNK_LENGTH = 16_384;

/** The stdout loggers' gathered lines, written out by one 'exit' listener for them all. */
const gatheredAtExit = new Set<LineChunker>();

function flushedAtExit(lines: LineChunker): void {
  if (gatheredAtExit.size === 0) {
    process.on('exit', () => {
      for (const gathered of gatheredAtExit) gathered.flushSync();
    });
  }
  gatheredAtExit.add(lines);
}

/** Longest time a line logged to stdout waits in the buffer. */
export const STDOUT_FLUSH_INTERVAL_MS = 1000;

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
