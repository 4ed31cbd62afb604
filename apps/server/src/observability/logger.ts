import { write } from 'node:fs';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import pino, { type DestinationStream, type Logger } from 'pino';
import type PinoPretty from 'pino-pretty';

// pino-pretty is loaded only for a terminal, never in production.
const require = createRequire(import.meta.url);

/**
 * JSON lines on stdout, or pretty lines for a terminal; `redact` guards against a stray token.
 *
 * @example
 * const logger = createLogger('info', { pretty: wantsPrettyLogs(config.production, process.stdout.isTTY) });
 */
export function createLogger(
  level: string,
  options: { readonly pretty?: boolean; readonly destination?: DestinationStream } = {},
): Logger {
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
  const destination = bufferedDestination(1);
  // Node makes the pipes it wraps non-blocking: a stalled reader then means EAGAIN (pino
  // retries), not a blocked pool thread that would keep the process from exiting.
  void process.stdout.isTTY;
  void process.stderr.isTTY;
  destination.on('error', (error: NodeJS.ErrnoException) => {
    // pino stops writing there; one line says so on stderr, if that still works.
    if (brokenStdout) return;
    brokenStdout = true;
    const line = `${JSON.stringify({ level: 50, time: Date.now(), pid: process.pid, service: 'plant-store', msg: `stdout failed (${error.code ?? error.message}): log lines are no longer written there` })}\n`;
    write(2, line, () => undefined);
  });
  stdout = destination;
  return pino(settings, destination);
}

type BufferedDestination = ReturnType<typeof pino.destination>;

/**
 * Written in 16 KiB batches at least once a second (a hard kill can lose that second); at most
 * 8 MiB wait for a stalled reader (more are dropped), so the process cannot grow without bound.
 */
export function bufferedDestination(dest: number | string): BufferedDestination {
  return pino.destination({
    dest,
    minLength: 16_384,
    maxWrite: 65_536,
    maxLength: 8 * 1024 * 1024,
    periodicFlush: 1000,
    sync: false,
  });
}

export const EXIT_FLUSH_MS = 1000;
let brokenStdout = false;
let stdout: BufferedDestination | undefined;

/**
 * Exits once the buffered lines are written, or after `EXIT_FLUSH_MS`. pino's own exit flush
 * retries a failing pipe forever, so the destination is closed first (that flush skips it).
 *
 * @example
 * await exitAfterLogs(logger, 0);
 */
export async function exitAfterLogs(logger: Logger, code: number): Promise<never> {
  const flushed =
    stdout === undefined
      ? new Promise<void>((resolve) => logger.flush(() => resolve()))
      : flushBuffered(stdout);
  await Promise.race([flushed.catch(() => undefined), sleep(EXIT_FLUSH_MS)]);
  stdout?.destroy(); // a no-op once destroyed
  process.exit(code);
}

/**
 * Flushes until a flush writes nothing: a flush during a write calls back when that write ends,
 * which can leave up to `minLength` bytes buffered.
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
 * Pretty logs only for a person: stdout is a terminal and this is not production.
 *
 * @example
 * wantsPrettyLogs(false, process.stdout.isTTY); // true in a developer's terminal
 */
export function wantsPrettyLogs(production: boolean, stdoutIsTty: boolean | undefined): boolean {
  return !production && stdoutIsTty === true;
}
