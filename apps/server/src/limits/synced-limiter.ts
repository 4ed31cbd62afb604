import { RateLimiterRes } from './flexible.ts';
import type { Limiter } from './rate-limits.ts';
import {
  type BucketShape,
  bucketFits,
  bucketInterval,
  bucketRefusal,
  bucketResult,
} from './token-bucket.ts';

/** How often local counts are added to the shared store, by default. */
export const DEFAULT_SYNC_INTERVAL_MS = 100;

interface KeyState {
  /** Points taken here and not yet added to the shared store. */
  pending: number;
  /** Points being added right now (in flight to the shared store). */
  flushing: number;
  /** The shared count as of the last sync (everyone's points, ours included). */
  known: number;
  /** Window: when the shared window of this key ends (epoch ms); 0 until the first sync. */
  resetAt: number;
  /** Smooth: when `known` was learnt (epoch ms); it drains from then on. */
  knownAt: number;
}

export interface SyncedLimiterOptions {
  readonly points: number;
  readonly durationSeconds: number;
  /**
   * How `remote` gives points back (see `LimiterSpec.refill`); default `window`. For `smooth`
   * (token buckets) `remote.penalty` must answer the shared bucket's level as
   * `consumedPoints`.
   */
  readonly refill?: 'window' | 'smooth';
  /** Default 100 ms. */
  readonly syncIntervalMs?: number;
  /** Told when a sync fails (the points are kept and retried). */
  readonly onError?: (error: unknown) => void;
}

/**
 * A limiter whose counts are shared through `remote` (e.g. rate-limiter-flexible's
 * RateLimiterPostgres) without a round trip per request: each instance decides locally from
 * the shared count it last saw plus its own points since, and adds its points to the shared
 * store in one `penalty` per key every `syncIntervalMs`, learning everyone's total in return.
 * So the limit holds across instances up to what the others take within one interval (plus a
 * round trip), the shared store sees at most one write per key per interval per instance, and
 * requests never wait for it. When the store fails, the points stay local and are retried: the
 * limit keeps holding per instance.
 *
 * With `refill: 'smooth'` (token buckets) the shared level learnt at a sync drains locally with
 * time; the points taken here since do not drain until they are synced (the store adds them at
 * the sync's time), so an instance may refuse up to `rate × syncIntervalMs` points early: never
 * more than that, and never late. A refused take is not counted.
 *
 * @example
 * const limiter = new SyncedLimiter(postgresLimiter, { points: 600, durationSeconds: 60 });
 * await limiter.consume('env#1'); // decided locally; synced within 100 ms
 */
export class SyncedLimiter implements Limiter {
  readonly points: number;
  readonly #durationMs: number;
  readonly #smooth: BucketShape | undefined;
  readonly #interval: number;
  readonly #remote: Limiter;
  readonly #intervalMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #keys = new Map<string, KeyState>();
  #timer: NodeJS.Timeout | undefined;
  #syncing: Promise<void> | undefined;
  #stopped = false;

  constructor(remote: Limiter, options: SyncedLimiterOptions) {
    this.#remote = remote;
    this.points = options.points;
    this.#durationMs = options.durationSeconds * 1000;
    this.#smooth = options.refill === 'smooth' ? options : undefined;
    this.#interval = this.#smooth ? bucketInterval(this.#smooth) : 0;
    this.#intervalMs = options.syncIntervalMs ?? DEFAULT_SYNC_INTERVAL_MS;
    this.#onError = options.onError ?? (() => undefined);
  }

  async consume(key: string, points = 1): Promise<RateLimiterRes> {
    if (this.#smooth) {
      const now = Date.now();
      const state = this.#state(key, true, now) as KeyState;
      const level = this.#consumed(state, now) * this.#interval;
      if (!bucketFits(this.#smooth, level, points))
        throw bucketRefusal(this.#smooth, level, points);
      return this.#result(this.#take(key, points));
    }
    const state = this.#take(key, points);
    if (this.#consumed(state) > this.points) throw this.#result(state);
    return this.#result(state);
  }

  async penalty(key: string, points = 1): Promise<RateLimiterRes> {
    return this.#result(this.#take(key, points));
  }

  async get(key: string): Promise<RateLimiterRes | null> {
    const state = this.#state(key, false);
    return state === undefined ? null : this.#result(state);
  }

  /** Adds every pending point to the shared store now (and waits for a sync in progress). */
  async sync(): Promise<void> {
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    // One sync at a time, so a key never has two additions in flight.
    while (this.#syncing) await this.#syncing;
    const syncing = this.#syncAll().finally(() => {
      this.#syncing = undefined;
    });
    this.#syncing = syncing;
    await syncing;
  }

  /** Stops syncing; pending points are dropped (call `sync` first to keep them). */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #take(key: string, points: number): KeyState {
    const state = this.#state(key, true) as KeyState;
    state.pending += points;
    this.#schedule();
    return state;
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      void this.sync().then(() => {
        // Points a failed sync kept are retried on the next tick of the timer.
        for (const state of this.#keys.values()) {
          if (state.pending > 0) return this.#schedule();
        }
      });
    }, this.#intervalMs).unref();
  }

  /** The state of `key` in the current window (a past window's state is dropped). */
  #state(key: string, create: boolean, now = Date.now()): KeyState | undefined {
    let state = this.#keys.get(key);
    if (state && this.#smooth) {
      if (state.pending === 0 && state.flushing === 0 && this.#consumed(state, now) === 0) {
        this.#keys.delete(key);
        state = undefined;
      }
    } else if (state && state.resetAt !== 0 && state.resetAt <= now) {
      // The shared window ended: what others had taken no longer counts.
      state.known = 0;
      state.resetAt = 0;
      if (state.pending === 0 && state.flushing === 0) {
        this.#keys.delete(key);
        state = undefined;
      }
    }
    if (state === undefined && create) {
      state = { pending: 0, flushing: 0, known: 0, resetAt: 0, knownAt: now };
      this.#keys.set(key, state);
    }
    return state;
  }

  #consumed(state: KeyState, now = Date.now()): number {
    const known = this.#smooth
      ? Math.max(0, state.known - (now - state.knownAt) / this.#interval)
      : state.known;
    return known + state.flushing + state.pending;
  }

  #result(state: KeyState): RateLimiterRes {
    const consumed = this.#consumed(state);
    if (this.#smooth) return bucketResult(this.#smooth, consumed * this.#interval);
    const msBeforeNext =
      state.resetAt === 0 ? this.#durationMs : Math.max(0, state.resetAt - Date.now());
    return new RateLimiterRes(Math.max(0, this.points - consumed), msBeforeNext, consumed, false);
  }

  async #syncAll(): Promise<void> {
    const work: Promise<void>[] = [];
    for (const [key, state] of this.#keys) {
      if (state.pending === 0) {
        if (this.#smooth) this.#state(key, false);
        else if (state.resetAt !== 0 && state.resetAt <= Date.now()) this.#keys.delete(key);
        continue;
      }
      const points = state.pending;
      state.pending = 0;
      state.flushing = points;
      work.push(
        this.#remote.penalty(key, points).then(
          (shared) => {
            state.flushing = 0;
            // The shared total includes these points and everyone else's.
            state.known = shared.consumedPoints;
            state.knownAt = Date.now();
            state.resetAt = state.knownAt + Math.max(0, shared.msBeforeNext);
          },
          (error: unknown) => {
            state.flushing = 0;
            state.pending += points;
            this.#onError(error);
          },
        ),
      );
    }
    await Promise.all(work);
  }
}
