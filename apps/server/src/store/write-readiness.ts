/** Why a store cannot commit: a stable code, what happened, and what the operator should do. */
export interface NotReadyCause {
  /** `SQLITE_FULL`, `SQLITE_READONLY`, `FILE_REPLACED`, a PostgreSQL SQLSTATE, … */
  readonly code: string;
  readonly message: string;
  readonly action: string;
}

/** Whether the store can commit now; when not, why. */
export type Readiness =
  | { readonly ready: true }
  | { readonly ready: false; readonly cause: NotReadyCause };

/** The timer functions `WriteReadiness` uses (the global ones by default; fakes in tests). */
export interface ReadinessTimers {
  setInterval(callback: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

/** Options of `WriteReadiness`. */
export interface WriteReadinessOptions {
  /**
   * A cheap real write: true when it worked; throws (or rejects) when the store cannot commit;
   * false when it did not run this time (nothing learned, the state stays).
   */
  readonly probe: () => boolean | Promise<boolean>;
  /** Turns a failed write (a probe's or a commit's) into its cause. */
  readonly describe: (error: unknown) => NotReadyCause;
  /** How often the probe runs; default 2000 ms. */
  readonly intervalMs?: number;
  /** Told once per transition: not ready (with the cause), or ready again. */
  readonly onChange?: (readiness: Readiness, previous: Readiness) => void;
  readonly timers?: ReadinessTimers;
}

/** How often a store probes its ability to commit, by default. */
export const DEFAULT_PROBE_INTERVAL_MS = 2000;

const READY: Readiness = { ready: true };

/**
 * Whether a store can commit, from the outcome of its latest write: the last commit, or the
 * periodic probe (a cheap real write) — whichever happened last. A store that receives no
 * traffic still notices a fault (and its end) within one probe interval.
 *
 * @example
 * const readiness = new WriteReadiness({ probe: () => (probeStatement.run(), true), describe });
 * readiness.start();
 * readiness.noteWrite(); // a commit succeeded
 * readiness.current(); // { ready: true }
 */
export class WriteReadiness {
  readonly #options: WriteReadinessOptions;
  readonly #timers: ReadinessTimers;
  #state: Readiness = READY;
  #timer: unknown;
  #inFlight: Promise<Readiness> | undefined;

  constructor(options: WriteReadinessOptions) {
    this.#options = options;
    this.#timers = options.timers ?? {
      setInterval: (callback, ms) => setInterval(callback, ms).unref(),
      clearInterval: (handle) => clearInterval(handle as NodeJS.Timeout),
    };
  }

  /** Probes at once, then every interval (idempotent). */
  start(): void {
    if (this.#timer !== undefined) return;
    void this.#probeIfIdle();
    this.#timer = this.#timers.setInterval(
      () => void this.#probeIfIdle(),
      this.#options.intervalMs ?? DEFAULT_PROBE_INTERVAL_MS,
    );
  }

  /** Stops the periodic probe. */
  stop(): void {
    if (this.#timer === undefined) return;
    this.#timers.clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** The state after the latest write. */
  current(): Readiness {
    return this.#state;
  }

  /** A write (commit) succeeded, or failed with `error`. */
  noteWrite(error?: unknown): void {
    this.#set(error === undefined ? READY : { ready: false, cause: this.#options.describe(error) });
  }

  /** Runs the probe now (after the one running, if any) and records its outcome. */
  async probe(): Promise<Readiness> {
    await this.#inFlight;
    return this.#probeIfIdle();
  }

  /** Runs the probe unless one is running (the timer's way: probes never pile up). */
  #probeIfIdle(): Promise<Readiness> {
    if (this.#inFlight) return this.#inFlight;
    const run = (async () => {
      try {
        if (await this.#options.probe()) this.noteWrite();
      } catch (error) {
        this.noteWrite(error);
      }
      return this.#state;
    })();
    this.#inFlight = run;
    void run.then(() => {
      if (this.#inFlight === run) this.#inFlight = undefined;
    });
    return run;
  }

  #set(next: Readiness): void {
    const previous = this.#state;
    this.#state = next;
    const changed =
      previous.ready !== next.ready ||
      (!previous.ready && !next.ready && previous.cause.code !== next.cause.code);
    if (changed) this.#options.onChange?.(next, previous);
  }
}
