import { EventEmitter } from 'node:events';
import { writeSync } from 'node:fs';

/** A full non-blocking pipe (a reader that stopped reading) is tried again this much later. */
const RETRY_MS = 100;
/** How long the exit waits for a full pipe (a reader slower than the last lines). */
const EXIT_WAIT_MS = 1000;
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/**
 * pino's destination for stdout: lines kept in an array and written together once `minLength`
 * characters wait, `flushMs` passed, or the process exits. Writes never wait while it runs:
 * stdout is a non-blocking pipe (a full one is tried again later; past `maxLength` waiting, new
 * lines are dropped) or a file; at exit a full pipe is waited for, up to 1 s. A failed write
 * emits `error` and ends the writing. (pino.destination's sonic-boom measures its whole pending
 * text again at every line: 7.8 KB copied per request.)
 *
 * @example
 * const stdout = new LineBuffer(1); // pino(settings, stdout)
 * stdout.flush(() => process.exit(0));
 */
export class LineBuffer extends EventEmitter {
  #lines: string[] = [];
  #waiting = 0;
  /** Bytes a full pipe has not taken yet. */
  #unwritten: Buffer | undefined;
  #retry: NodeJS.Timeout | undefined;
  #ended = false;
  #flushed: Array<() => void> = [];
  readonly #timer: NodeJS.Timeout;
  /** At exit a full pipe is waited for, up to EXIT_WAIT_MS: the process has nothing else to do. */
  readonly #atExit = () => this.#writeWaiting(Date.now() + EXIT_WAIT_MS);

  constructor(
    private readonly fd: number,
    private readonly limits = { minLength: 16_384, maxLength: 8 * 1024 * 1024, flushMs: 1000 },
  ) {
    super();
    this.#timer = setInterval(() => this.#writeWaiting(), limits.flushMs).unref();
    process.once('exit', this.#atExit);
  }

  write(line: string): boolean {
    if (this.#ended || this.#waiting + line.length > this.limits.maxLength) return false;
    this.#lines.push(line);
    this.#waiting += line.length;
    if (this.#waiting >= this.limits.minLength) this.#writeWaiting();
    return true;
  }

  /** Calls back once every line so far is written (or the writing ended). */
  flush(callback: () => void = () => undefined): void {
    this.#flushed.push(callback);
    this.#writeWaiting();
  }

  /** Stops writing; what waits is dropped, and waiting flushes are called back. */
  destroy(): void {
    this.#end();
  }

  #writeWaiting(waitUntil = 0): void {
    while (!this.#ended) {
      if (this.#unwritten === undefined && this.#lines.length > 0) {
        this.#unwritten = Buffer.from(this.#lines.join(''));
        this.#lines = [];
        this.#waiting = 0;
      }
      if (this.#unwritten === undefined) break;
      let written: number;
      try {
        written = writeSync(this.fd, this.#unwritten);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') {
          this.#end();
          this.emit('error', error);
        } else if (Date.now() < waitUntil) {
          Atomics.wait(PAUSE, 0, 0, 5); // the reader takes some, then the loop writes on
          continue;
        } else {
          this.#retry ??= setTimeout(() => {
            this.#retry = undefined;
            this.#writeWaiting();
          }, RETRY_MS).unref();
        }
        return;
      }
      this.#unwritten =
        written < this.#unwritten.length ? this.#unwritten.subarray(written) : undefined;
    }
    for (const callback of this.#flushed.splice(0)) callback();
  }

  #end(): void {
    this.#ended = true;
    this.#lines = [];
    this.#unwritten = undefined;
    clearInterval(this.#timer);
    clearTimeout(this.#retry);
    process.off('exit', this.#atExit);
    for (const callback of this.#flushed.splice(0)) callback();
  }
}
