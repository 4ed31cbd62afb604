import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { positiveInteger } from '../integer-option.ts';
import {
  type CheckpointWorkerData,
  type FromCheckpointWorker,
  runCheckpointWorker,
  type ToCheckpointWorker,
} from './wal-checkpoint-worker.ts';

/** Options of `WalCheckpointer`. */
export interface WalCheckpointerOptions
  extends Omit<CheckpointWorkerData, 'intervalMs' | 'restartFrames'> {
  /** How often new WAL frames are copied into the database file; default 1000 ms. */
  readonly intervalMs?: number;
  /** WAL length (frames) at which commits pause briefly so the WAL starts over; default 16 000 (64 MiB of 4 KiB pages). */
  readonly restartFrames?: number;
  /** Stops starting commits; settles once none is running. */
  readonly pauseCommits: () => Promise<void>;
  /** Lets commits start again. */
  readonly resumeCommits: () => void;
  /** The worker failed or ended by itself: checkpoints are the caller's job again. */
  readonly onFailure: (error: Error) => void;
  /** Commits were held for `seconds`; `walRestarted` when every frame was copied by then. */
  readonly onPause?: (seconds: number, walRestarted: boolean) => void;
  /** A checkpoint failed (told once per streak of failures); the worker tries again. */
  readonly onCheckpointError?: (error: Error) => void;
}

/** Counters of a `WalCheckpointer`. */
export interface WalCheckpointerStats {
  /** Whether the worker is running (false once it failed or was closed). */
  readonly running: boolean;
  /** Pauses after which every WAL frame was in the database file, so the WAL started over. */
  readonly restarts: number;
  /** Most frames the WAL held when a pause was asked for. */
  readonly largestWalFrames: number;
  /** Time commits spent paused, in total. */
  readonly pausedMs: number;
  /** Streaks of failed checkpoints (each ended, or ends, with a checkpoint that worked). */
  readonly failures: number;
  /** Whether the latest checkpoint failed. */
  readonly failing: boolean;
}

// A checkpoint copies the latest version of every page written since the last one and fsyncs
// the database file: once a second, a page that commits keep rewriting is copied once, not
// ten times (the worker thread's CPU fell from 5.4–6.3 to 1.2–1.3 µs per request at 3000 req/s
// against every 100 ms; bench/README.md). The cost: the length is checked once a second, so
// under full load the WAL passes `restartFrames` by up to a second of commits before it starts
// over (22–26k frames against ~17k with 1M plants stored); SQLite's ceiling stays at 4×.
const DEFAULT_INTERVAL_MS = 1000;
const DEFAULT_RESTART_FRAMES = 16_000;
const CLOSE_TIMEOUT_MS = 10_000;

/**
 * The worker's script: `runCheckpointWorker` from its own source text, so the same code runs
 * from the TypeScript sources (tests, tsx) and from the bundle, with no second entry file.
 * Transpilers that keep function names (esbuild's keepNames, as tsx uses it) wrap inner
 * functions in a `__name` helper defined outside the function; the script defines it too.
 */
const WORKER_SOURCE = [
  'const __name = (target) => target;',
  `(${runCheckpointWorker.toString()})(require, require('node:worker_threads').workerData);`,
].join('\n');

/**
 * Runs the WAL checkpoints of a SQLite store on a worker thread (see `runCheckpointWorker`),
 * so the thread that commits never copies pages into the database file nor waits for its
 * fsync. The store pauses its commits when asked (`pauseCommits`), for as long as copying the
 * last frames takes, so the WAL stays bounded. If the worker fails, commits resume and
 * `onFailure` hands checkpoints back to the store.
 *
 * @example
 * const checkpointer = new WalCheckpointer({
 *   driverPath: SQLITE_DRIVER_PATH, filename, synchronous: 2, busyTimeoutMs: 5000,
 *   pauseCommits: () => queue.pause(), resumeCommits: () => queue.resume(),
 *   onFailure: () => db.pragma('wal_autocheckpoint = 1000'),
 * });
 * await checkpointer.close();
 */
export class WalCheckpointer {
  readonly #options: WalCheckpointerOptions;
  readonly #worker: Worker;
  readonly #exited: Promise<void>;
  #running = true;
  #closing = false;
  #pausedAt: number | undefined;
  #restarts = 0;
  #largestWalFrames = 0;
  #pausedMs = 0;
  #failures = 0;
  #failing = false;

  constructor(options: WalCheckpointerOptions) {
    this.#options = options;
    const data: CheckpointWorkerData = {
      driverPath: options.driverPath,
      filename: options.filename,
      synchronous: options.synchronous,
      busyTimeoutMs: options.busyTimeoutMs,
      intervalMs: positiveInteger('intervalMs', options.intervalMs ?? DEFAULT_INTERVAL_MS),
      restartFrames: positiveInteger(
        'restartFrames',
        options.restartFrames ?? DEFAULT_RESTART_FRAMES,
      ),
    };
    this.#worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: data,
      name: 'wal-checkpointer',
    });
    // A store someone forgot to close does not keep the process alive.
    this.#worker.unref();
    this.#worker.on('message', (message: FromCheckpointWorker) => this.#receive(message));
    let failure: Error | undefined;
    this.#worker.on('error', (error) => {
      failure = error;
    });
    this.#exited = new Promise((resolve) => {
      this.#worker.once('exit', (code) => {
        this.#stopped();
        if (!this.#closing) {
          options.onFailure(
            failure ?? new Error(`The WAL checkpoint worker exited with code ${code}`),
          );
        }
        resolve();
      });
    });
  }

  /** Counters, for tests and diagnostics. */
  stats(): WalCheckpointerStats {
    return {
      running: this.#running,
      restarts: this.#restarts,
      largestWalFrames: this.#largestWalFrames,
      pausedMs: this.#pausedMs,
      failures: this.#failures,
      failing: this.#failing,
    };
  }

  /** Stops the worker (it closes its connection) and lets commits go on if they were paused. */
  async close(): Promise<void> {
    if (this.#closing) return this.#exited;
    this.#closing = true;
    if (this.#running) {
      this.#send({ type: 'close' });
      const timeout = setTimeout(() => void this.#worker.terminate(), CLOSE_TIMEOUT_MS);
      await this.#exited;
      clearTimeout(timeout);
    }
  }

  #receive(message: FromCheckpointWorker): void {
    if (message.type === 'failed') {
      this.#failures += 1;
      this.#failing = true;
      this.#options.onCheckpointError?.(
        Object.assign(new Error(`WAL checkpoint failed: ${message.message}`), {
          code: message.code,
        }),
      );
    } else if (message.type === 'recovered') {
      this.#failing = false;
    } else if (message.type === 'pause') {
      this.#largestWalFrames = Math.max(this.#largestWalFrames, message.result.log);
      this.#pausedAt = performance.now();
      void this.#options.pauseCommits().then(() => {
        if (this.#running && !this.#closing) this.#send({ type: 'paused' });
      });
    } else {
      const restarted = message.result.checkpointed === message.result.log;
      if (restarted) this.#restarts += 1;
      const seconds = this.#resume();
      if (seconds !== undefined) this.#options.onPause?.(seconds, restarted);
    }
  }

  /** Lets commits go on if they were held; returns for how long (s) they were. */
  #resume(): number | undefined {
    if (this.#pausedAt === undefined) return undefined;
    const pausedMs = performance.now() - this.#pausedAt;
    this.#pausedMs += pausedMs;
    this.#pausedAt = undefined;
    this.#options.resumeCommits();
    return pausedMs / 1000;
  }

  /** The worker is gone: commits must not wait for it. */
  #stopped(): void {
    this.#running = false;
    this.#resume();
  }

  #send(message: ToCheckpointWorker): void {
    this.#worker.postMessage(message);
  }
}
