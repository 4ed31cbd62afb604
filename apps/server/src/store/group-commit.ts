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

/** Counters of a `GroupCommitQueue`: `commits` batches that committed, `creates` settled items. */
export interface GroupCommitStats {
  readonly commits: number;
  readonly creates: number;
}

interface Waiting<T, R> {
  readonly item: T;
  readonly resolve: (value: R) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit: items submitted in one event-loop turn are committed together in one batch
 * (one transaction, one fsync), and each submitter gets its own item's result. A batch starts
 * on the next turn (`setImmediate`), at most `maxBatchSize` items; while `maxInFlight` batches
 * are committing, new items wait and form the next batch, so batches grow with the load.
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
  #queue: Waiting<T, R>[] = [];
  #timer: NodeJS.Immediate | undefined;
  #commits = 0;
  #settled = 0;

  constructor(options: {
    readonly commit: CommitBatch<T, R>;
    readonly maxBatchSize: number;
    /** Most batches committing at once (only matters for an asynchronous commit); default 1. */
    readonly maxInFlight?: number;
  }) {
    this.#commit = options.commit;
    this.#maxBatchSize = options.maxBatchSize;
    this.#maxInFlight = options.maxInFlight ?? 1;
  }

  /** Queues `item` for the next batch; settles with its result once that batch committed. */
  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      this.#schedule();
    });
  }

  /** Commits everything queued (in batches) and waits until no batch is in flight. */
  async drain(): Promise<void> {
    if (this.#timer !== undefined) clearImmediate(this.#timer);
    this.#timer = undefined;
    while (this.#queue.length > 0 || this.#inFlight.size > 0) {
      while (this.#queue.length > 0 && this.#inFlight.size < this.#maxInFlight) this.#startBatch();
      if (this.#inFlight.size > 0) await Promise.race(this.#inFlight);
    }
  }

  stats(): GroupCommitStats {
    return { commits: this.#commits, creates: this.#settled };
  }

  #schedule(): void {
    if (this.#timer !== undefined || this.#queue.length === 0) return;
    if (this.#inFlight.size >= this.#maxInFlight) return; // a finishing batch reschedules
    this.#timer = setImmediate(() => {
      this.#timer = undefined;
      // One batch per free slot per turn, so a synchronous commit yields between batches.
      for (let slots = this.#maxInFlight - this.#inFlight.size; slots > 0; slots -= 1) {
        if (this.#queue.length === 0) break;
        this.#startBatch();
      }
      this.#schedule();
    });
  }

  #startBatch(): void {
    const batch = this.#queue.splice(0, this.#maxBatchSize);
    let results: ReturnType<CommitBatch<T, R>>;
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
    const done: Promise<void> = results.then(
      (values) => this.#finish(done, batch, undefined, values),
      (error: unknown) => this.#finish(done, batch, error),
    );
    this.#inFlight.add(done);
  }

  /** Frees the slot and schedules the next batch before the submitters hear back. */
  #finish(
    done: Promise<void>,
    batch: readonly Waiting<T, R>[],
    error: unknown,
    results?: readonly ItemResult<R>[],
  ): void {
    this.#inFlight.delete(done);
    this.#schedule();
    this.#settle(batch, error, results);
  }

  #settle(batch: readonly Waiting<T, R>[], error: unknown, results?: readonly ItemResult<R>[]) {
    this.#settled += batch.length;
    if (results === undefined) {
      for (const entry of batch) entry.reject(error);
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
