import { positiveInteger } from './integer-option.ts';

/** The outcome of one item of a batch: its value, or the error that failed this item alone. */
export type ItemResult<R> =
  | { readonly ok: true; readonly value: R }
  | { readonly ok: false; readonly error: unknown };

/**
 * Commits a batch and returns one result per item, in order, synchronously or not. Throwing
 * (or rejecting) fails every item of the batch with that error.
 */
export type CommitBatch<T, R> = (
  items: readonly T[],
) => readonly ItemResult<R>[] | Promise<readonly ItemResult<R>[]>;

/** Options of `GroupCommitQueue`. */
export interface GroupCommitOptions<T, R> {
  /** Commits one batch. */
  readonly commit: CommitBatch<T, R>;
  /** Most items in one batch. */
  readonly maxBatchSize: number;
  /** Most batches committing at once (only matters for an asynchronous `commit`); default 1. */
  readonly maxInFlight?: number;
}

/** Counters of a `GroupCommitQueue`. */
export interface GroupCommitStats {
  /** Batches whose commit succeeded (one transaction each). */
  readonly commits: number;
  /** Items that were settled (resolved or rejected). */
  readonly creates: number;
}

/**
 * Group commit: items submitted in one event-loop turn are committed together in one batch
 * (one transaction, one fsync), and each submitter gets its own item's result. A batch is
 * started on the next turn (`setImmediate`), at most `maxBatchSize` items at a time; while
 * `maxInFlight` batches are committing, new items wait and form the next batch, so batches
 * grow with the load instead of the number of transactions.
 *
 * @example
 * const queue = new GroupCommitQueue<number, number>({
 *   maxBatchSize: 100,
 *   commit: (items) => items.map((n) => ({ ok: true, value: n * 2 })),
 * });
 * await Promise.all([queue.submit(1), queue.submit(2)]); // [2, 4], committed as one batch
 */
export class GroupCommitQueue<T, R> {
  readonly #commit: CommitBatch<T, R>;
  readonly #maxBatchSize: number;
  readonly #maxInFlight: number;
  readonly #inFlight = new Set<Promise<void>>();
  #queue: { item: T; resolve: (value: R) => void; reject: (error: unknown) => void }[] = [];
  #timer: NodeJS.Immediate | undefined;
  #paused = false;
  #commits = 0;
  #settled = 0;

  constructor(options: GroupCommitOptions<T, R>) {
    this.#commit = options.commit;
    this.#maxBatchSize = positiveInteger('maxBatchSize', options.maxBatchSize);
    this.#maxInFlight = positiveInteger('maxInFlight', options.maxInFlight ?? 1);
  }

  /** Queues `item` for the next batch; settles with its result once that batch committed. */
  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      this.#schedule();
    });
  }

  /** Items waiting for a batch. */
  get pending(): number {
    return this.#queue.length;
  }

  /** Whether `pause` holds new batches back. */
  get paused(): boolean {
    return this.#paused;
  }

  /**
   * Starts no new batch until `resume`; resolves once no batch is in flight, so nothing is
   * committing when it settles. Items submitted meanwhile wait and form the next batch.
   */
  async pause(): Promise<void> {
    this.#paused = true;
    this.#cancelScheduledBatch();
    while (this.#inFlight.size > 0) await Promise.race(this.#inFlight);
  }

  /** Lets batches start again after `pause`. */
  resume(): void {
    this.#paused = false;
    this.#schedule();
  }

  /** Commits everything queued (in batches), paused or not, and waits until no batch is in flight. */
  async drain(): Promise<void> {
    this.#cancelScheduledBatch();
    while (this.#queue.length > 0 || this.#inFlight.size > 0) {
      while (this.#queue.length > 0 && this.#inFlight.size < this.#maxInFlight) this.#startBatch();
      if (this.#inFlight.size > 0) await Promise.race(this.#inFlight);
    }
  }

  /** Counters, for tests and diagnostics. */
  stats(): GroupCommitStats {
    return { commits: this.#commits, creates: this.#settled };
  }

  /** Drops a batch start scheduled for the next turn, if any. */
  #cancelScheduledBatch(): void {
    if (this.#timer === undefined) return;
    clearImmediate(this.#timer);
    this.#timer = undefined;
  }

  #schedule(): void {
    if (this.#paused || this.#timer !== undefined || this.#queue.length === 0) return;
    if (this.#inFlight.size >= this.#maxInFlight) return; // a finishing batch reschedules
    this.#timer = setImmediate(() => {
      this.#timer = undefined;
      // One batch per free slot per turn, so a synchronous commit yields between batches.
      let slots = this.#maxInFlight - this.#inFlight.size;
      while (slots > 0 && this.#queue.length > 0) {
        this.#startBatch();
        slots -= 1;
      }
      this.#schedule();
    });
  }

  #startBatch(): void {
    const batch = this.#queue.splice(0, this.#maxBatchSize);
    let results: readonly ItemResult<R>[] | Promise<readonly ItemResult<R>[]>;
    try {
      results = this.#commit(batch.map((entry) => entry.item));
    } catch (error) {
      this.#settle(batch, error);
      return;
    }
    if (!(results instanceof Promise)) {
      this.#settle(batch, undefined, results);
      return;
    }
    const finish = (error: unknown, values?: readonly ItemResult<R>[]) => {
      // Free the slot and schedule the next batch before the submitters hear back.
      this.#inFlight.delete(done);
      this.#schedule();
      this.#settle(batch, error, values);
    };
    const done: Promise<void> = results.then(
      (values) => finish(undefined, values),
      (error: unknown) => finish(error),
    );
    this.#inFlight.add(done);
  }

  #settle(
    batch: readonly { resolve: (value: R) => void; reject: (error: unknown) => void }[],
    batchError: unknown,
    results?: readonly ItemResult<R>[],
  ): void {
    this.#settled += batch.length;
    if (results === undefined) {
      for (const entry of batch) entry.reject(batchError);
      return;
    }
    this.#commits += 1;
    batch.forEach((entry, index) => {
      const result = results[index];
      if (result === undefined) entry.reject(new Error('The batch commit returned no result'));
      else if (result.ok) entry.resolve(result.value);
      else entry.reject(result.error);
    });
  }
}
