import { EventEmitter } from 'node:events';
import { writeSync } from 'node:fs';

/** A full non-blocking pipe (a reader that stopped reading) is tried again this much later. */
const RETRY_MS = 100;

/**
 * pino's destination for stdout: lines kept in an array and written together once `minLength`
 * characters wait, `flushMs` passed, or the process exits. Writes never wait: stdout is a
 * non-blocking pipe (a full one is tried again later; past `maxLength` waiting, new lines are
 * dropped) or a file. A failed write emits `error` and ends the writing. (pino.destination's
 * sonic-boom measures its whole pending text again at every line: 7.8 KB copied per request.)
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
  readonly #atExit = () => this.#writeWaiting();

  constructor(
    private readonly fd: number,
    private readonly limits = { minLength: 16_384, maxLength: 8 * 1024 * 1024, flushMs: 1000 },
  ) {
    super();
    this.#timer = setInterval(this.#atExit, limits.flushMs).unref();
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

  #writeWaiting(): void {
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
