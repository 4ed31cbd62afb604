import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { GroupCommitQueue, type ItemResult } from './group-commit.ts';

const double = (items: readonly number[]): ItemResult<number>[] =>
  items.map((n) => ({ ok: true, value: n * 2 }));

/** A commit whose batches finish only when the test says so. */
function manualCommit() {
  const batches: { items: readonly number[]; finish: (error?: Error) => void }[] = [];
  const commit = (items: readonly number[]) =>
    new Promise<ItemResult<number>[]>((resolve, reject) => {
      batches.push({
        items,
        finish: (error) => (error ? reject(error) : resolve(double(items))),
      });
    });
  return { batches, commit };
}

describe('GroupCommitQueue', () => {
  it('commits the items of one event-loop turn as one batch, each getting its own result', async () => {
    const seen: (readonly number[])[] = [];
    const queue = new GroupCommitQueue<number, number>({
      maxBatchSize: 100,
      commit: (items) => {
        seen.push(items);
        return double(items);
      },
    });
    expect(await Promise.all([1, 2, 3].map((n) => queue.submit(n)))).toEqual([2, 4, 6]);
    expect(seen).toEqual([[1, 2, 3]]);
    expect(queue.stats()).toEqual({ commits: 1, creates: 3 });
  });

  it('splits a turn into batches of at most maxBatchSize, one per turn', async () => {
    const seen: number[] = [];
    const queue = new GroupCommitQueue<number, number>({
      maxBatchSize: 4,
      commit: (items) => {
        seen.push(items.length);
        return double(items);
      },
    });
    await Promise.all(Array.from({ length: 10 }, (_, i) => queue.submit(i)));
    expect(seen).toEqual([4, 4, 2]);
    expect(queue.stats()).toEqual({ commits: 3, creates: 10 });
  });

  it('rejects one item alone when its result is an error', async () => {
    const queue = new GroupCommitQueue<number, number>({
      maxBatchSize: 10,
      commit: (items) =>
        items.map((n) =>
          n === 2 ? { ok: false, error: new Error('bad 2') } : { ok: true, value: n },
        ),
    });
    const results = await Promise.allSettled([1, 2, 3].map((n) => queue.submit(n)));
    expect(results).toEqual([
      { status: 'fulfilled', value: 1 },
      { status: 'rejected', reason: new Error('bad 2') },
      { status: 'fulfilled', value: 3 },
    ]);
    expect(queue.stats()).toEqual({ commits: 1, creates: 3 });
  });

  it('rejects the whole batch when the commit throws or rejects, and keeps working after', async () => {
    let fail = true;
    const queue = new GroupCommitQueue<number, number>({
      maxBatchSize: 10,
      commit: async (items) => {
        if (fail) throw new Error('database down');
        return double(items);
      },
    });
    const failed = await Promise.allSettled([queue.submit(1), queue.submit(2)]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(queue.stats()).toEqual({ commits: 0, creates: 2 });
    fail = false;
    expect(await queue.submit(3)).toBe(6);
    expect(queue.stats()).toEqual({ commits: 1, creates: 3 });
  });

  it('rejects every item when the commit returns too few results', async () => {
    const queue = new GroupCommitQueue<number, number>({ maxBatchSize: 10, commit: () => [] });
    await expect(queue.submit(1)).rejects.toThrow('no result');
  });

  it('while a batch is in flight, collects the next items into one following batch', async () => {
    const { batches, commit } = manualCommit();
    const queue = new GroupCommitQueue<number, number>({ maxBatchSize: 100, commit });
    const first = queue.submit(1);
    await nextTurn();
    expect(batches.map((b) => b.items)).toEqual([[1]]);
    const later = [queue.submit(2), queue.submit(3)];
    await nextTurn();
    const more = queue.submit(4);
    await nextTurn();
    expect(batches).toHaveLength(1);
    batches[0]?.finish();
    expect(await first).toBe(2);
    await nextTurn();
    expect(batches.map((b) => b.items)).toEqual([[1], [2, 3, 4]]);
    batches[1]?.finish();
    expect(await Promise.all([...later, more])).toEqual([4, 6, 8]);
  });

  it('runs up to maxInFlight batches at once', async () => {
    const { batches, commit } = manualCommit();
    const queue = new GroupCommitQueue<number, number>({ maxBatchSize: 2, maxInFlight: 2, commit });
    const all = Promise.all([1, 2, 3, 4, 5].map((n) => queue.submit(n)));
    await nextTurn();
    expect(batches.map((b) => b.items)).toEqual([
      [1, 2],
      [3, 4],
    ]);
    batches[1]?.finish();
    await nextTurn();
    await nextTurn();
    expect(batches.map((b) => b.items)).toEqual([[1, 2], [3, 4], [5]]);
    batches[0]?.finish();
    batches[2]?.finish();
    expect(await all).toEqual([2, 4, 6, 8, 10]);
  });

  it('drain commits everything queued and waits for batches in flight', async () => {
    const committed: number[] = [];
    const queue = new GroupCommitQueue<number, number>({
      maxBatchSize: 2,
      commit: async (items) => {
        await nextTurn();
        committed.push(...items);
        return double(items);
      },
    });
    const results = [1, 2, 3, 4, 5].map((n) => queue.submit(n));
    await queue.drain();
    expect(committed).toEqual([1, 2, 3, 4, 5]);
    expect(queue.stats()).toEqual({ commits: 3, creates: 5 });
    expect(await Promise.all(results)).toEqual([2, 4, 6, 8, 10]);
  });
});
