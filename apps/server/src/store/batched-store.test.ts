import { setImmediate as nextTurn } from 'node:timers/promises';
import type { NewPlant } from '@plant-store/schema';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BatchedStore, type BatchedStoreOptions, type RowResult } from './batched-store.ts';
import { outcomeAgainst, type Readiness, StoreUnavailableError } from './plant-store.ts';

const fault = (code: string) => Object.assign(new Error(`failed with ${code}`), { code });

type Commit = (plants: readonly NewPlant[]) => RowResult[] | Promise<RowResult[]>;

/** An in-memory adapter whose database "fails" with `failure` while it is set. */
class FakeStore extends BatchedStore {
  readonly rows = new Map<bigint, NewPlant>();
  /** The ids of every batch committed, in order. */
  readonly batches: bigint[][] = [];
  failure: Error | undefined;
  probes = 0;
  /** Replaces the in-memory commit when set. */
  commit: Commit | undefined;

  /** `commits`: batches that committed; `creates`: settled creates (told by the observer). */
  readonly counts: { commits: number; creates: number };

  constructor(options: BatchedStoreOptions, maxInFlight?: number) {
    const counts = { commits: 0, creates: 0 };
    const observer = {
      ...options.observer,
      onCommit(size: number, seconds: number, committed: boolean) {
        options.observer?.onCommit?.(size, seconds, committed);
        counts.creates += size;
        counts.commits += committed ? 1 : 0;
      },
    };
    super({ ...options, observer }, maxInFlight);
    this.counts = counts;
    this.startProbing();
  }

  stats() {
    return { ...this.counts };
  }

  protected async commitBatch(plants: readonly NewPlant[]): Promise<RowResult[]> {
    this.batches.push(plants.map((plant) => plant.id));
    if (this.commit) return this.commit(plants);
    if (this.failure) throw this.failure;
    return plants.map((plant) => {
      if (plant.name === 'bad') return { ok: false, error: new RangeError('bad row') };
      const stored = this.rows.get(plant.id);
      if (stored) return { ok: true, value: outcomeAgainst(stored, plant) };
      this.rows.set(plant.id, plant);
      return { ok: true, value: 'created' };
    });
  }
  protected override async query1() {
    if (this.failure) throw this.failure;
  }
  protected async probeWrite() {
    this.probes += 1;
    if (this.failure) throw this.failure;
  }
  protected translate(error: unknown) {
    return (error as { code?: string }).code === 'DOWN'
      ? new StoreUnavailableError('down', { cause: error })
      : error;
  }
  protected async release() {}
}

describe('BatchedStore', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function setUp(options: BatchedStoreOptions = {}) {
    const changes: Readiness[] = [];
    const commits: [number, boolean][] = [];
    const calls: string[] = [];
    const store = new FakeStore({
      probeIntervalMs: 1000,
      onReadinessChange: (next) => changes.push(next),
      observer: {
        onCommit: (size, _seconds, committed) => commits.push([size, committed]),
        onCall: (operation, outcome) => calls.push(`${operation} ${outcome}`),
      },
      ...options,
    });
    return { store, changes, commits, calls };
  }

  it('commits the creates of one turn together and tells the observer of each batch and call', async () => {
    const { store, commits, calls } = setUp();
    const outcomes = Promise.all([
      store.create({ id: 1n, name: 'Fern' }),
      store.create({ id: 1n, name: 'Fern' }),
      store.create({ id: 1n, name: 'Moss' }),
    ]);
    await vi.advanceTimersByTimeAsync(0);
    expect(await outcomes).toEqual(['created', 'replayed', 'conflict']);
    store.failure = fault('DOWN');
    const failed = store.create({ id: 2n, name: 'Ivy' });
    const rejected = expect(failed).rejects.toThrow(StoreUnavailableError);
    await vi.advanceTimersByTimeAsync(0);
    await rejected;
    expect(commits).toEqual([
      [3, true],
      [1, false],
    ]);
    await expect(store.ping()).rejects.toThrow(StoreUnavailableError);
    store.failure = undefined;
    await store.ping();
    await store.close();
    await expect(store.create({ id: 3n, name: 'Moss' })).rejects.toThrow(StoreUnavailableError);
    expect(calls).toEqual([
      'create created',
      'create replayed',
      'create conflict',
      'create error',
      'ping error',
      'ping ok',
      'create error',
    ]);
  });

  it('probes at start and every interval, turning not ready within one interval of a fault and back', async () => {
    const { store, changes } = setUp();
    await vi.advanceTimersByTimeAsync(0);
    expect(store.probes).toBe(1);
    expect(store.readiness()).toEqual({ ready: true });
    store.failure = fault('DOWN');
    await vi.advanceTimersByTimeAsync(1000);
    expect(store.readiness()).toEqual({
      ready: false,
      cause: { code: 'DOWN', message: 'down' },
    });
    await vi.advanceTimersByTimeAsync(5000); // still failing: no second transition
    expect(changes).toHaveLength(1);
    store.failure = undefined;
    await vi.advanceTimersByTimeAsync(1000);
    expect(changes.map((next) => next.ready)).toEqual([false, true]);
    await store.close();
    const probes = store.probes;
    await vi.advanceTimersByTimeAsync(5000);
    expect(store.probes).toBe(probes);
    expect(store.readiness()).toMatchObject({ ready: false, cause: { code: 'CLOSED' } });
  });

  it('takes the latest write: a failed commit turns it not ready at once, a committed one ready', async () => {
    const { store, changes } = setUp({ probeIntervalMs: 60_000 });
    store.failure = fault('DOWN');
    const failed = expect(store.create({ id: 1n, name: 'Fern' })).rejects.toThrow('down');
    await vi.advanceTimersByTimeAsync(0);
    await failed;
    expect(store.readiness()).toMatchObject({ ready: false, cause: { code: 'DOWN' } });
    store.failure = undefined;
    // A batch whose only row was refused says nothing about the database.
    const bad = expect(store.create({ id: 2n, name: 'bad' })).rejects.toThrow(RangeError);
    await vi.advanceTimersByTimeAsync(0);
    await bad;
    expect(store.readiness().ready).toBe(false);
    const created = store.create({ id: 3n, name: 'Moss' });
    await vi.advanceTimersByTimeAsync(0);
    expect(await created).toBe('created');
    expect(changes.map((next) => next.ready)).toEqual([false, true]);
    await store.close();
  });

  it('runs one probe at a time, and ping answers StoreUnavailableError when down', async () => {
    const { store } = setUp({ probeIntervalMs: 60_000 });
    await vi.advanceTimersByTimeAsync(0);
    await Promise.all([store.probeReadiness(), store.probeReadiness()]);
    expect(store.probes).toBe(2); // at start, then one shared by both calls
    await vi.advanceTimersByTimeAsync(60_000);
    expect(store.probes).toBe(3);
    store.failure = fault('DOWN');
    await expect(store.ping()).rejects.toThrow(StoreUnavailableError);
    await store.close();
  });
});

/** A commit whose batches finish only when the test says so. */
function manualCommit() {
  const batches: { finish: (error?: Error) => void }[] = [];
  const commit: Commit = (plants) =>
    new Promise((resolve, reject) => {
      const created = plants.map((): RowResult => ({ ok: true, value: 'created' }));
      batches.push({ finish: (error) => (error ? reject(error) : resolve(created)) });
    });
  return { batches, commit };
}

describe('BatchedStore group commit', () => {
  const stores: FakeStore[] = [];
  const open = (options: BatchedStoreOptions = {}, maxInFlight?: number) => {
    const store = new FakeStore({ probeIntervalMs: 60_000, ...options }, maxInFlight);
    stores.push(store);
    return store;
  };
  const plant = (id: number): NewPlant => ({ id: BigInt(id), name: `Plant ${id}` });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });

  it('commits the creates of one event-loop turn as one batch, each getting its own result', async () => {
    const store = open();
    const outcomes = [plant(1), plant(2), plant(1)].map((p) => store.create(p));
    expect(await Promise.all(outcomes)).toEqual(['created', 'created', 'replayed']);
    expect(store.batches).toEqual([[1n, 2n, 1n]]);
    expect(store.stats()).toEqual({ commits: 1, creates: 3 });
  });

  it('splits a turn into batches of at most maxBatchSize, one per turn', async () => {
    const store = open({ maxBatchSize: 4 });
    await Promise.all(Array.from({ length: 10 }, (_, i) => store.create(plant(i))));
    expect(store.batches.map((batch) => batch.length)).toEqual([4, 4, 2]);
    expect(store.stats()).toEqual({ commits: 3, creates: 10 });
  });

  it('rejects one create alone when its result is an error', async () => {
    const store = open();
    const results = await Promise.allSettled([
      store.create(plant(1)),
      store.create({ id: 2n, name: 'bad' }),
      store.create(plant(3)),
    ]);
    expect(results).toEqual([
      { status: 'fulfilled', value: 'created' },
      { status: 'rejected', reason: new RangeError('bad row') },
      { status: 'fulfilled', value: 'created' },
    ]);
    expect(store.stats()).toEqual({ commits: 1, creates: 3 });
  });

  it('rejects the whole batch when the commit rejects, and keeps working after', async () => {
    const store = open();
    store.commit = async () => {
      throw new Error('database down');
    };
    const failed = await Promise.allSettled([store.create(plant(1)), store.create(plant(2))]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(store.stats()).toEqual({ commits: 0, creates: 2 });
    store.commit = undefined;
    expect(await store.create(plant(3))).toBe('created');
    expect(store.stats()).toEqual({ commits: 1, creates: 3 });
  });

  it('rejects every create when the commit returns too few results', async () => {
    const store = open();
    store.commit = () => [];
    await expect(store.create(plant(1))).rejects.toThrow('no result');
  });

  it('while a batch is in flight, collects the next creates into one following batch', async () => {
    const { batches, commit } = manualCommit();
    const store = open();
    store.commit = commit;
    const first = store.create(plant(1));
    await nextTurn();
    expect(store.batches).toEqual([[1n]]);
    const later = [store.create(plant(2)), store.create(plant(3))];
    await nextTurn();
    const more = store.create(plant(4));
    await nextTurn();
    expect(batches).toHaveLength(1);
    batches[0]?.finish();
    expect(await first).toBe('created');
    await nextTurn();
    expect(store.batches).toEqual([[1n], [2n, 3n, 4n]]);
    batches[1]?.finish();
    expect(await Promise.all([...later, more])).toEqual(['created', 'created', 'created']);
  });

  it('runs up to maxInFlight batches at once', async () => {
    const { batches, commit } = manualCommit();
    const store = open({ maxBatchSize: 2 }, 2);
    store.commit = commit;
    const all = Promise.all([1, 2, 3, 4, 5].map((id) => store.create(plant(id))));
    await nextTurn();
    expect(store.batches).toEqual([
      [1n, 2n],
      [3n, 4n],
    ]);
    batches[1]?.finish();
    await nextTurn();
    await nextTurn();
    expect(store.batches).toEqual([[1n, 2n], [3n, 4n], [5n]]);
    batches[0]?.finish();
    batches[2]?.finish();
    expect(await all).toHaveLength(5);
  });

  it('close commits everything queued and waits for batches in flight', async () => {
    const store = open({ maxBatchSize: 2 });
    const committed: bigint[] = [];
    store.commit = async (plants) => {
      await nextTurn();
      committed.push(...plants.map((p) => p.id));
      return plants.map(() => ({ ok: true, value: 'created' }));
    };
    const results = [1, 2, 3, 4, 5].map((id) => store.create(plant(id)));
    await store.close();
    expect(committed).toEqual([1n, 2n, 3n, 4n, 5n]);
    expect(store.stats()).toEqual({ commits: 3, creates: 5 });
    expect(await Promise.all(results)).toEqual(Array(5).fill('created'));
  });
});
