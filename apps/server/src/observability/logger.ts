import { write } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import pino, { type DestinationStream, type Logger } from 'pino';

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
  // Past 8 MiB waiting (a stalled reader) lines are dropped. Node makes the pipes it wraps
  // (touched below) non-blocking: a stalled reader means EAGAIN (retried), not a pool thread held
  // for good.
  void process.stdout.isTTY;
  void process.stderr.isTTY;
  const destination = pino.destination({
    dest: 1,
    sync: false,
    minLength: 4096,
    maxLength: 8 * 1024 * 1024,
    periodicFlush: 1000,
  });
  let failed = false;
  destination.on('error', (error: NodeJS.ErrnoException) => {
    if (failed) return;
    failed = true; // pino stops writing on EPIPE; one line says so on stderr, if that still works
    const line = `${JSON.stringify({ level: 50, time: Date.now(), pid: process.pid, service: 'plant-store', msg: `stdout failed (${error.code ?? error.message}): log lines are no longer written there` })}\n`;
    write(2, line, () => undefined);
  });
  stdout = destination;
  return pino(settings, gathered(destination));
}

/** A line waits at most this long, or until this many characters wait, before one write. */
const GATHER_MS = 100;
const GATHER_CHARACTERS = 64 * 1024;

/**
 * Lines gathered, then handed to `destination` in one write: each of its writes costs a
 * thread-pool round trip (3–4 µs a line at 2,000 lines a second in 4-KiB pieces; ~0.5 once
 * gathered, `bench/results/gap-s12.md`). The gathered lines reach it before pino's exit hooks
 * flush it.
 */
function gathered(destination: NonNullable<typeof stdout>) {
  let lines: string[] = [];
  let characters = 0;
  let timer: NodeJS.Timeout | undefined;
  const hand = () => {
    clearTimeout(timer);
    timer = undefined;
    if (lines.length === 0) return;
    const text = lines.join('');
    lines = [];
    characters = 0;
    try {
      destination.write(text);
    } catch {} // destroyed by exitAfterLogs past its bound: dropped, as what waited there
  };
  process.prependListener('beforeExit', hand);
  process.prependListener('exit', hand);
  return {
    write(line: string) {
      lines.push(line);
      characters += line.length;
      if (characters >= GATHER_CHARACTERS) hand();
      else timer ??= setTimeout(hand, GATHER_MS).unref();
    },
    flush(callback: (error?: Error) => void) {
      hand();
      destination.flush(callback);
    },
  };
}

export const EXIT_FLUSH_MS = 1000;

let stdout: ReturnType<typeof pino.destination> | undefined;

/** Exits once the buffered lines are written, or after `EXIT_FLUSH_MS` (a stalled reader). */
export async function exitAfterLogs(logger: Logger, code: number): Promise<never> {
  const flushed = new Promise<void>((resolve) => logger.flush(() => resolve()));
  await Promise.race([flushed, sleep(EXIT_FLUSH_MS)]);
  // Past the bound what waits is dropped: pino's exit hook would wait for a stalled pipe for good.
  stdout?.destroy();
  process.exit(code);
}
