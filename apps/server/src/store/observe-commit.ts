import type { CommitBatch } from './group-commit.ts';
import type { StoreObserver } from './plant-store.ts';

/**
 * Wraps a group-commit `commit` function so that `observer.onCommit` hears of every batch: its
 * size, how long the commit took and whether it committed. Works for synchronous and
 * asynchronous commits; without an `onCommit` hook, `commit` is returned unchanged.
 *
 * @example
 * const queue = new GroupCommitQueue({
 *   maxBatchSize: 1000,
 *   commit: observeCommit((plants) => commitPlants(plants), options.observer),
 * });
 */
export function observeCommit<T, R>(
  commit: CommitBatch<T, R>,
  observer: StoreObserver | undefined,
): CommitBatch<T, R> {
  const onCommit = observer?.onCommit?.bind(observer);
  if (onCommit === undefined) return commit;
  return (items) => {
    const started = performance.now();
    const report = (committed: boolean) =>
      onCommit(items.length, (performance.now() - started) / 1000, committed);
    let results: ReturnType<CommitBatch<T, R>>;
    try {
      results = commit(items);
    } catch (error) {
      report(false);
      throw error;
    }
    if (!(results instanceof Promise)) {
      report(true);
      return results;
    }
    return results.then(
      (values) => {
        report(true);
        return values;
      },
      (error: unknown) => {
        report(false);
        throw error;
      },
    );
  };
}
