import { write } from 'node:fs';
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
  // per ~70 request lines, and at least once a second. A hard kill can lose that last second
  // of lines. At most 8 MiB wait for a reader that does not read (more are dropped), so a
  // stalled log pipe cannot grow the process without bound.
  const destination = bufferedDestination(1);
  // Node makes a pipe it wraps non-blocking (fds 1 and 2, shared with pino's destination and
  // the line below): a write to a reader that stalled then fails with EAGAIN (pino waits and
  // retries) instead of blocking a thread of Node's pool, which would keep the process from
  // exiting at all.
  void process.stdout.isTTY;
  void process.stderr.isTTY;
  destination.on('error', (error: NodeJS.ErrnoException) => {
    // pino itself stops writing to a broken pipe (EPIPE: the reader is gone); any other
    // failure also ends logging there. One line says so on stderr, if that still works.
    if (brokenStdout) return;
    brokenStdout = true;
    const line = `${JSON.stringify({ level: 50, time: Date.now(), pid: process.pid, service: 'plant-store', msg: `stdout failed (${error.code ?? error.message}): log lines are no longer written there` })}\n`;
    write(2, line, () => undefined);
  });
  stdout = destination;
  return pino(settings, destination);
}

/** pino's file destination (sonic-boom), as `bufferedDestination` makes it. */
type BufferedDestination = ReturnType<typeof pino.destination>;

/**
 * The buffered asynchronous destination stdout gets (see `createLogger`), on `dest` (a file
 * descriptor or a file).
 */
export function bufferedDestination(dest: number | string): BufferedDestination {
  return pino.destination({
    dest,
    minLength: 16_384,
    maxWrite: 65_536,
    maxLength: 8 * 1024 * 1024,
    periodicFlush: STDOUT_FLUSH_INTERVAL_MS,
    sync: false,
  });
}

/** Longest time a line logged to stdout waits in the buffer. */
const STDOUT_FLUSH_INTERVAL_MS = 1000;
/** Longest wait for the buffered lines at exit. */
export const EXIT_FLUSH_MS = 1000;
let brokenStdout = false;
/** The process's stdout destination, once a logger writes there. */
let stdout: BufferedDestination | undefined;

/**
 * Ends the process with `code` once the buffered log lines are written, or after at most
 * `EXIT_FLUSH_MS` (a reader that stalled; lines not written by then are lost). pino's own
 * exit-time flush retries a pipe that fails (EPIPE from a reader that exited, EAGAIN from one
 * that stalled) every 100 ms forever, so the process would never exit: its destination is
 * closed first, which that flush skips.
 *
 * @example
 * logger.info('stopped');
 * await exitAfterLogs(logger, 0);
 */
export async function exitAfterLogs(logger: Logger, code: number): Promise<never> {
  let timer: NodeJS.Timeout | undefined;
  const flushed =
    stdout === undefined
      ? new Promise<void>((resolve) => logger.flush(() => resolve()))
      : flushBuffered(stdout);
  await Promise.race([
    flushed.catch(() => undefined), // a destination that cannot flush
    new Promise((resolve) => {
      timer = setTimeout(resolve, EXIT_FLUSH_MS);
    }),
  ]);
  clearTimeout(timer);
  stdout?.destroy(); // a no-op once destroyed
  process.exit(code);
}

/**
 * Resolves once every line `destination` buffered is written (or its pipe failed). One
 * `flush` is not enough: while a write is under way, flush calls back when that write ends,
 * and a write ends leaving up to `minLength` bytes buffered (sonic-boom writes the rest only
 * when more lines come), so the lines logged just before the exit stayed behind. Flushing
 * again until a flush writes nothing writes them all.
 *
 * @example
 * await flushBuffered(destination); // the last lines are in the pipe
 */
export async function flushBuffered(destination: BufferedDestination): Promise<void> {
  for (;;) {
    let written = 0;
    const count = (bytes: number) => {
      written += bytes;
    };
    destination.on('write', count);
    await new Promise<void>((resolve) => destination.flush(() => resolve())); // an error too
    destination.off('write', count);
    if (written === 0) return;
  }
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
