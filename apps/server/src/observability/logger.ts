import { write } from 'node:fs';
import { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pino, { type DestinationStream, type Logger } from 'pino';

/** Most bytes of log lines waiting for stdout; past it, lines are dropped and counted. */
const MAX_WAITING_BYTES = 8 * 1024 * 1024;
export const EXIT_FLUSH_MS = 1000;

let stdout: DestinationStream | undefined;
/** pino.destination, when stdout is a file. */
let stdoutFile: ReturnType<typeof pino.destination> | undefined;
let droppedLines = 0;
let failing = false;

/** Log lines dropped since the process started (stdout failing or stalled past its buffer). */
export const droppedLogLines = (): number => droppedLines;

/** JSON lines on stdout (or on `destination`); `redact` guards against a stray token. */
export function createLogger(
  level: string,
  options: { readonly destination?: DestinationStream } = {},
): Logger {
  const settings = {
    level,
    base: { service: 'plant-store' },
    redact: ['req.headers.authorization', 'headers.authorization', 'authorization', 'token'],
  };
  if (options.destination) return pino(settings, options.destination);
  stdout ??= openStdout();
  return pino(settings, stdout);
}

/**
 * stdout as Node documents it: a pipe or a socket is asynchronous (`process.stdout`), so a
 * stalled reader holds no thread; a file goes through pino.destination, which writes once 8 KiB
 * wait (or once a second) and retries a failed write with the next lines. Either way lines
 * wait up to 8 MiB, then are dropped and counted; after a full disk or a transient error they
 * resume once writes succeed, with one stderr line when they stop and one when they resume.
 */
function openStdout(): DestinationStream {
  // Node's docs: process.stdout is a net.Socket unless fd 1 is a file.
  if (process.stdout instanceof Socket) {
    process.stdout.on('error', failed);
    return {
      write(line: string) {
        const { destroyed, writableLength } = process.stdout;
        if (destroyed || writableLength > MAX_WAITING_BYTES) droppedLines += 1;
        else process.stdout.write(line);
      },
    };
  }
  stdoutFile = pino.destination({
    dest: 1,
    sync: false,
    // sonic-boom measures the piece it appends each line to: a larger one costs more per line.
    minLength: 8 * 1024,
    maxLength: MAX_WAITING_BYTES,
    periodicFlush: 1000,
  });
  stdoutFile.on('drop', () => {
    droppedLines += 1;
  });
  stdoutFile.on('error', failed);
  stdoutFile.on('write', () => {
    if (!failing) return;
    failing = false;
    toStderr(30, `stdout writes again (${droppedLines} log lines dropped so far)`);
  });
  return stdoutFile;
}

function failed(error: NodeJS.ErrnoException): void {
  if (failing) return;
  failing = true;
  const what =
    error.code === 'EPIPE'
      ? 'log lines are no longer written there'
      : 'log lines wait for it (past 8 MiB they are dropped and counted)';
  toStderr(50, `stdout failed (${error.code ?? error.name}): ${what}`);
}

function toStderr(level: number, msg: string): void {
  const line = { level, time: Date.now(), pid: process.pid, service: 'plant-store', msg };
  write(2, `${JSON.stringify(line)}\n`, () => undefined);
}

/** Exits once the waiting lines are written, or after `EXIT_FLUSH_MS` (a stalled reader). */
export async function exitAfterLogs(logger: Logger, code: number): Promise<never> {
  const flushed = new Promise<boolean>((resolve) => {
    logger.flush(() => {
      if (process.stdout.writableLength === 0) resolve(true);
      else process.stdout.once('drain', () => resolve(true));
    });
  });
  // A stalled reader or a full disk: what waits is dropped (pino's exit hook would wait for it).
  if (!(await Promise.race([flushed, sleep(EXIT_FLUSH_MS, false)]))) stdoutFile?.destroy();
  process.exit(code);
}
