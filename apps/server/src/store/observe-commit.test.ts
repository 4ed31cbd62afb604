import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GroupCommitQueue, type ItemResult } from './group-commit.ts';
import { observeCommit } from './observe-commit.ts';
import type { StoreObserver } from './plant-store.ts';
import { createSqliteStore } from './sqlite/sqlite-store.ts';

interface Report {
  size: number;
  seconds: number;
  committed: boolean;
}

function recorder(): { observer: StoreObserver; reports: Report[] } {
  const reports: Report[] = [];
  return {
    reports,
    observer: {
      onCommit: (size, seconds, committed) => reports.push({ size, seconds, committed }),
    },
  };
}

const double = (items: readonly number[]): ItemResult<number>[] =>
  items.map((n) => ({ ok: true, value: n * 2 }));

describe('observeCommit', () => {
  // Durations come from performance.now(), faked here so that each commit takes a known time.
  afterEach(() => {
    vi.useRealTimers();
  });

  it('returns the commit unchanged when there is no onCommit hook', () => {
    expect(observeCommit(double, undefined)).toBe(double);
    expect(observeCommit(double, {})).toBe(double);
  });

  it('reports each synchronous batch with its size and duration', async () => {
    const { observer, reports } = recorder();
    vi.useFakeTimers({ toFake: ['performance'] });
    const slowDouble = (items: readonly number[]) => {
      vi.advanceTimersByTime(items.length * 100);
      return double(items);
    };
    const queue = new GroupCommitQueue({
      maxBatchSize: 3,
      commit: observeCommit(slowDouble, observer),
    });
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => queue.submit(n)));
    expect(results).toEqual([2, 4, 6, 8, 10]);
    expect(reports).toEqual([
      { size: 3, seconds: 0.3, committed: true },
      { size: 2, seconds: 0.2, committed: true },
    ]);
  });

  it('reports asynchronous batches once they settle, failed ones as not committed', async () => {
    const { observer, reports } = recorder();
    let fail = false;
    vi.useFakeTimers({ toFake: ['performance'] });
    const commit = async (items: readonly number[]) => {
      await Promise.resolve();
      vi.advanceTimersByTime(20);
      if (fail) throw new Error('disk on fire');
      return double(items);
    };
    const queue = new GroupCommitQueue({
      maxBatchSize: 10,
      commit: observeCommit(commit, observer),
    });
    await Promise.all([queue.submit(1), queue.submit(2)]);
    fail = true;
    await expect(queue.submit(3)).rejects.toThrow('disk on fire');
    expect(reports).toEqual([
      { size: 2, seconds: 0.02, committed: true },
      { size: 1, seconds: 0.02, committed: false },
    ]);
  });

  it('reports a synchronous commit that throws as not committed', async () => {
    const { observer, reports } = recorder();
    const queue = new GroupCommitQueue<number, number>({
      maxBatchSize: 10,
      commit: observeCommit(() => {
        throw new Error('locked');
      }, observer),
    });
    await expect(queue.submit(1)).rejects.toThrow('locked');
    expect(reports.map((r) => [r.size, r.committed])).toEqual([[1, false]]);
  });
});

describe('SqliteStore observer', () => {
  let folder: string | undefined;
  afterEach(() => {
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('hears of every group commit of a real SQLite file', async () => {
    folder = mkdtempSync(join(tmpdir(), 'plant-observer-'));
    const { observer, reports } = recorder();
    const store = createSqliteStore({ filename: join(folder, 'plants.db'), observer });
    try {
      const outcomes = await Promise.all(
        [1n, 2n, 3n, 4n].map((id) => store.create({ id, name: `Fern ${id}` })),
      );
      expect(outcomes).toEqual(['created', 'created', 'created', 'created']);
      await store.create({ id: 5n, name: 'Ivy' });
    } finally {
      await store.close();
    }
    expect(reports.map((r) => [r.size, r.committed])).toEqual([
      [4, true],
      [1, true],
    ]);
  });
});
