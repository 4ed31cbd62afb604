import type { NewPlant } from '@plant-store/schema';
import {
  type CreateOutcome,
  errorCode,
  type Readiness,
  type StoreObserver,
  StoreUnavailableError,
} from './plant-store.ts';

export interface BatchedStoreOptions {
  readonly maxBatchSize?: number;
  readonly observer?: StoreObserver;
  readonly probeIntervalMs?: number;
  /** Told once per readiness transition. */
  readonly onReadinessChange?: (readiness: Readiness) => void;
}

/** One create of a batch: its outcome, or the error that failed this create alone. */
export type RowResult =
  | { readonly ok: true; readonly value: CreateOutcome }
  | { readonly ok: false; readonly error: unknown };

type Waiting = Omit<PromiseWithResolvers<CreateOutcome>, 'promise'> & {
  readonly plant: NewPlant;
  readonly queued: number;
};

const READY: Readiness = { ready: true };
const NO_RESULT: RowResult = { ok: false, error: new Error('The batch commit returned no result') };
const CLOSED: Readiness = {
  ready: false,
  cause: { code: 'CLOSED', message: 'The plant store is closed' },
};

/**
 * Group commit: the creates of one event-loop turn commit in one transaction; while `maxInFlight`
 * batches commit, new creates form the next, so batches grow with the load. Readiness is the
 * outcome of the latest write, a commit or the periodic probe (an idle store notices a fault).
 * The writes and probes of the PlantStore port; each store `implements PlantStore` itself and
 * adds the port's reads.
 */
export abstract class BatchedStore {
  readonly #options: BatchedStoreOptions;
  readonly #maxInFlight: number;
  #inFlight = 0;
  #waiting: Waiting[] = [];
  #nextBatch: NodeJS.Immediate | undefined;
  /** Set by `close` while creates are left: called once the last has its outcome. */
  #drained: (() => void) | undefined;
  #state: Readiness = READY;
  #probing: Promise<Readiness> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  protected constructor(options: BatchedStoreOptions, maxInFlight = 1) {
    this.#options = options;
    this.#maxInFlight = maxInFlight;
  }

  /** One transaction: one result per plant, in order; throwing fails all. */
  protected abstract commitBatch(plants: readonly NewPlant[]): Promise<readonly RowResult[]>;
  /** A round trip for `ping` (PostgreSQL: reachable now); a SQLite file needs none. */
  protected query1?(): Promise<void>;
  /** A cheap real write that changes nothing stored; throws when the store cannot commit. */
  protected abstract probeWrite(): Promise<void>;
  /** StoreUnavailableError (the 503) when the database is unreachable, else the error. */
  protected abstract translate(error: unknown): unknown;
  protected abstract release(): Promise<void>;

  protected startProbing(): void {
    void this.#probeIfIdle();
    const every = this.#options.probeIntervalMs ?? 2000;
    this.#timer = setInterval(() => void this.#probeIfIdle(), every).unref();
  }

  create(plant: NewPlant): Promise<CreateOutcome> {
    if (this.#closed) {
      this.#options.observer?.onCall?.('create', 'error', 0);
      return Promise.reject(closedError());
    }
    return new Promise<CreateOutcome>((resolve, reject) => {
      this.#waiting.push({ plant, resolve, reject, queued: performance.now() });
      this.#schedule();
    });
  }

  async ping(): Promise<void> {
    const started = performance.now();
    let outcome = 'error';
    try {
      if (this.#closed) throw closedError();
      await this.query1?.();
      outcome = 'ok';
    } catch (error) {
      throw this.translate(error);
    } finally {
      this.#options.observer?.onCall?.('ping', outcome, (performance.now() - started) / 1000);
    }
  }

  readiness(): Readiness {
    return this.#closed ? CLOSED : this.#state;
  }

  async probeReadiness(): Promise<Readiness> {
    await this.#probing;
    return this.#probeIfIdle();
  }

  /** Commits every queued create, then releases the database. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    if (this.#waiting.length > 0 || this.#inFlight > 0) {
      await new Promise<void>((resolve) => {
        this.#drained = resolve;
      });
    }
    await this.#probing;
    await this.release();
  }

  #schedule(): void {
    if (this.#nextBatch !== undefined || this.#waiting.length === 0) return;
    if (this.#inFlight >= this.#maxInFlight) return; // a finishing batch reschedules
    this.#nextBatch = setImmediate(() => {
      this.#nextBatch = undefined;
      // One batch per free slot per turn, so a synchronous commit yields between batches.
      while (this.#waiting.length > 0 && this.#inFlight < this.#maxInFlight) {
        this.#inFlight += 1;
        void this.#commit(this.#waiting.splice(0, this.#options.maxBatchSize ?? 1000));
      }
      this.#schedule();
    });
  }

  /**
   * Commits `batch`; the slot is freed and the next batch scheduled before each create hears
   * its outcome. Readiness follows: one row unreachable means all are.
   */
  async #commit(batch: readonly Waiting[]): Promise<void> {
    const started = performance.now();
    let results: readonly RowResult[];
    let committed = true;
    try {
      results = await this.commitBatch(batch.map((entry) => entry.plant));
    } catch (error) {
      committed = false;
      results = batch.map(() => ({ ok: false, error }));
    }
    this.#inFlight -= 1;
    this.#schedule();
    const now = performance.now();
    const observer = this.#options.observer;
    observer?.onCommit?.(batch.length, (now - started) / 1000, committed);
    let down: unknown; // the first error saying the database cannot commit now
    let stored = false;
    batch.forEach((entry, index) => {
      const result = results[index] ?? NO_RESULT;
      observer?.onCall?.('create', result.ok ? result.value : 'error', (now - entry.queued) / 1000);
      if (result.ok) {
        stored = true;
        entry.resolve(result.value);
      } else {
        const error = this.translate(result.error);
        if (!committed || error instanceof StoreUnavailableError) down ??= error;
        entry.reject(error);
      }
    });
    if (down !== undefined) this.#note(down);
    else if (stored) this.#note();
    if (this.#closed && this.#inFlight === 0 && this.#waiting.length === 0) this.#drained?.();
  }

  #probeIfIdle(): Promise<Readiness> {
    this.#probing ??= this.#probe().finally(() => {
      this.#probing = undefined;
    });
    return this.#probing;
  }

  async #probe(): Promise<Readiness> {
    try {
      if (this.#closed) throw closedError();
      await this.probeWrite();
      this.#note();
    } catch (error) {
      this.#note(this.translate(error));
    }
    return this.#state;
  }

  /** The readiness the latest write left: ready, or the cause it failed with. */
  #note(error?: unknown): void {
    const next: Readiness = error === undefined ? READY : { ready: false, cause: causeOf(error) };
    const key = (readiness: Readiness) => readiness.ready || readiness.cause.code;
    const changed = key(this.#state) !== key(next);
    this.#state = next;
    if (changed) this.#options.onReadinessChange?.(next);
  }
}

const causeOf = (error: unknown) => ({
  code: errorCode(error) ?? 'UNAVAILABLE',
  message: error instanceof Error ? error.message : String(error),
});
const closedError = () => new StoreUnavailableError('The plant store is closed');
