import type { NewPlant } from '@plant-store/schema';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BatchedStore, type BatchedStoreOptions, type RowResult } from './batched-store.ts';
import {
  type NotReadyCause,
  outcomeAgainst,
  type Readiness,
  StoreUnavailableError,
} from './plant-store.ts';

const fault = (code: string) => Object.assign(new Error(`failed with ${code}`), { code });

/** An in-memory adapter whose database "fails" with `failure` while it is set. */
class FakeStore extends BatchedStore {
  readonly rows = new Map<bigint, NewPlant>();
  failure: Error | undefined;
  probes = 0;

  constructor(options: BatchedStoreOptions) {
    super(options);
    this.startProbing();
  }

  protected commitBatch(plants: readonly NewPlant[]): RowResult[] {
    if (this.failure) throw this.failure;
    return plants.map((plant) => {
      if (plant.name === 'bad') return { ok: false, error: new RangeError('bad row') };
      const stored = this.rows.get(plant.id);
      if (stored) return { ok: true, value: outcomeAgainst(stored, plant) };
      this.rows.set(plant.id, plant);
      return { ok: true, value: 'created' };
    });
  }
  protected async read(id: bigint) {
    if (this.failure) throw this.failure;
    return this.rows.get(id);
  }
  protected async query1() {
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
  protected describe(error: unknown): NotReadyCause {
    const cause = error instanceof StoreUnavailableError ? error.cause : error;
    return { code: (cause as { code: string }).code, message: String(cause), action: 'wait' };
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
    const store = new FakeStore({
      probeIntervalMs: 1000,
      onReadinessChange: (next) => changes.push(next),
      observer: { onCommit: (size, _seconds, committed) => commits.push([size, committed]) },
      ...options,
    });
    return { store, changes, commits };
  }

  it('commits the creates of one turn together and tells the observer of each batch', async () => {
    const { store, commits } = setUp();
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
    await store.close();
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
      cause: { code: 'DOWN', message: 'Error: failed with DOWN', action: 'wait' },
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

  it('runs one probe at a time, and get/ping answer StoreUnavailableError when down', async () => {
    const { store } = setUp({ probeIntervalMs: 60_000 });
    await vi.advanceTimersByTimeAsync(0);
    await Promise.all([store.probeReadiness(), store.probeReadiness()]);
    expect(store.probes).toBe(2); // at start, then one shared by both calls
    await vi.advanceTimersByTimeAsync(60_000);
    expect(store.probes).toBe(3);
    store.failure = fault('DOWN');
    await expect(store.get(1n)).rejects.toThrow(StoreUnavailableError);
    await expect(store.ping()).rejects.toThrow(StoreUnavailableError);
    await store.close();
  });
});
