import type { NewPlant } from '@plant-store/schema';
import { GroupCommitQueue, type GroupCommitStats, type ItemResult } from './group-commit.ts';
import {
  type CreateOutcome,
  type NotReadyCause,
  type PlantStore,
  type Readiness,
  type StoreObserver,
  StoreUnavailableError,
} from './plant-store.ts';

/** What both adapters take from their caller for the shared part. */
export interface BatchedStoreOptions {
  /** Most creates committed in one transaction; default 1000. */
  readonly maxBatchSize?: number;
  /** Told about every group commit (for metrics). */
  readonly observer?: StoreObserver;
  /** How often a cheap write checks that the store can commit; default 2000 ms. */
  readonly probeIntervalMs?: number;
  /** Told once per readiness transition (see `readiness`). */
  readonly onReadinessChange?: (readiness: Readiness, previous: Readiness) => void;
}

export type RowResult = ItemResult<CreateOutcome>;

const READY: Readiness = { ready: true };
const CLOSED: Readiness = {
  ready: false,
  cause: {
    code: 'CLOSED',
    message: 'The plant store is closed',
    action: 'The server is shutting down.',
  },
};

/**
 * What the two adapters share: creates go through one group commit; `get`/`ping` and every
 * commit's errors go through the adapter's one classification (`translate`: unreachable →
 * StoreUnavailableError, the 503); readiness is the outcome of the latest write, a commit or
 * the probe the adapter runs every `probeIntervalMs` (so an idle store notices a fault too).
 * An adapter supplies only the database work.
 */
export abstract class BatchedStore implements PlantStore {
  readonly #queue: GroupCommitQueue<NewPlant, CreateOutcome>;
  readonly #onChange: BatchedStoreOptions['onReadinessChange'];
  readonly #probeIntervalMs: number;
  #state: Readiness = READY;
  #probing: Promise<Readiness> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  protected constructor(options: BatchedStoreOptions & { readonly maxInFlight?: number }) {
    this.#onChange = options.onReadinessChange;
    this.#probeIntervalMs = options.probeIntervalMs ?? 2000;
    const onCommit = options.observer?.onCommit?.bind(options.observer);
    this.#queue = new GroupCommitQueue({
      maxBatchSize: options.maxBatchSize ?? 1000,
      maxInFlight: options.maxInFlight ?? 1,
      commit: (plants) => {
        const started = performance.now();
        const report = (committed: boolean) =>
          onCommit?.(plants.length, (performance.now() - started) / 1000, committed);
        const settle = (results: readonly RowResult[]) => {
          report(true);
          return this.#noteResults(results);
        };
        const fail = (error: unknown): never => {
          report(false);
          const translated = this.translate(error);
          this.#note({ ready: false, cause: this.describe(translated) });
          throw translated;
        };
        try {
          const results = this.commitBatch(plants);
          return results instanceof Promise ? results.then(settle, fail) : settle(results);
        } catch (error) {
          return fail(error);
        }
      },
    });
  }

  /** Commits one batch in one transaction: one result per plant, in order. */
  protected abstract commitBatch(
    plants: readonly NewPlant[],
  ): readonly RowResult[] | Promise<readonly RowResult[]>;
  /** The stored plant with this id, or undefined. */
  protected abstract read(id: bigint): Promise<NewPlant | undefined>;
  /** A trivial query. */
  protected abstract query1(): Promise<void>;
  /** A cheap real write (no change to what is stored); throws when the store cannot commit. */
  protected abstract probeWrite(): Promise<void>;
  /** The database's error as the store reports it (StoreUnavailableError when unreachable). */
  protected abstract translate(error: unknown): unknown;
  /** Why a write failed, and what the operator should do. */
  protected abstract describe(error: unknown): NotReadyCause;
  /** Releases the database, once every queued create committed. */
  protected abstract release(): Promise<void>;

  /** Starts the periodic write probe; an adapter calls it once the database is open. */
  protected startProbing(): void {
    void this.#probeIfIdle();
    this.#timer = setInterval(() => void this.#probeIfIdle(), this.#probeIntervalMs).unref();
  }

  create(plant: NewPlant): Promise<CreateOutcome> {
    if (this.#closed) return Promise.reject(closedError());
    return this.#queue.submit(plant);
  }

  async get(id: bigint): Promise<NewPlant | undefined> {
    if (this.#closed) throw closedError();
    try {
      return await this.read(id);
    } catch (error) {
      throw this.translate(error);
    }
  }

  async ping(): Promise<void> {
    if (this.#closed) throw closedError();
    try {
      await this.query1();
    } catch (error) {
      throw this.translate(error);
    }
  }

  readiness(): Readiness {
    return this.#closed ? CLOSED : this.#state;
  }

  /** Runs the write probe now (after the one running, if any); resolves with its readiness. */
  async probeReadiness(): Promise<Readiness> {
    await this.#probing;
    return this.#probeIfIdle();
  }

  /** The timer's way: probes never pile up. */
  #probeIfIdle(): Promise<Readiness> {
    if (this.#probing === undefined) {
      const run = this.#probe();
      this.#probing = run;
      void run.then(() => {
        if (this.#probing === run) this.#probing = undefined;
      });
    }
    return this.#probing;
  }

  async #probe(): Promise<Readiness> {
    try {
      if (this.#closed) throw closedError();
      await this.probeWrite();
      this.#note(READY);
    } catch (error) {
      this.#note({ ready: false, cause: this.describe(this.translate(error)) });
    }
    return this.#state;
  }

  /** Counters of the group commit: `commits` transactions, `creates` settled creates. */
  stats(): GroupCommitStats {
    return this.#queue.stats();
  }

  /** Commits every queued create, then releases the database. Later calls reject. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#timer);
    await this.#queue.drain();
    await this.#probing;
    await this.release();
  }

  /** Per-row errors translated; readiness from the batch (unreachable for one row: for all). */
  #noteResults(results: readonly RowResult[]): RowResult[] {
    const translated = results.map((result) =>
      result.ok ? result : { ok: false as const, error: this.translate(result.error) },
    );
    const down = translated.find((r) => !r.ok && r.error instanceof StoreUnavailableError);
    if (down !== undefined && !down.ok) {
      this.#note({ ready: false, cause: this.describe(down.error) });
    } else if (translated.some((result) => result.ok)) this.#note(READY);
    return translated;
  }

  #note(next: Readiness): void {
    const previous = this.#state;
    this.#state = next;
    const changed =
      previous.ready !== next.ready ||
      (!previous.ready && !next.ready && previous.cause.code !== next.cause.code);
    if (changed) this.#onChange?.(next, previous);
  }
}

function closedError(): StoreUnavailableError {
  return new StoreUnavailableError('The plant store is closed');
}
