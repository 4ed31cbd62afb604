/**
 * A map with a size cap and per-entry expiry: the least recently used entry is dropped when a
 * new one would exceed `maxEntries`, and an entry is gone once its time has passed. Uses the
 * Map's insertion order as the recency order (a hit moves the entry to the end).
 *
 * @example
 * const cache = new BoundedCache<string, number>(2);
 * cache.set('a', 1, Date.now() + 1000);
 * cache.get('a', Date.now()); // 1
 */
export class BoundedCache<K, V> {
  readonly #entries = new Map<K, { value: V; until: number }>();

  constructor(readonly maxEntries: number) {
    if (!Number.isSafeInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError(`maxEntries must be a whole number ≥ 1, not ${maxEntries}`);
    }
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The value stored for `key` while `now` is before its expiry; `undefined` otherwise. */
  get(key: K, now: number): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (entry.until <= now) return undefined;
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Stores `value` for `key` until the time `until` (ms), evicting the oldest entry when full. */
  set(key: K, value: V, until: number): void {
    this.#entries.delete(key);
    if (this.#entries.size >= this.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, until });
  }

  delete(key: K): void {
    this.#entries.delete(key);
  }
}
