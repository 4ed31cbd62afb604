import { RateLimiterRes } from './flexible.ts';

/**
 * The shape of a token bucket: it holds at most `points`, and refills smoothly, one point every
 * `durationSeconds / points` (so an empty bucket is full again after `durationSeconds`).
 */
export interface BucketShape {
  readonly points: number;
  readonly durationSeconds: number;
}

/**
 * One step of the generic cell rate algorithm (GCRA, the token bucket kept as one number): a
 * key's state is its `level`, the milliseconds of refill the bucket lacks (0 = full).
 * Taking `points` adds `points × interval` to the level, where the level first drained with
 * the time passed. A take fits when the level stays within `points × interval` of the shape
 * (the whole bucket).
 */
export function bucketInterval(shape: BucketShape): number {
  return (shape.durationSeconds * 1000) / shape.points;
}

/**
 * The state of a bucket whose level is `levelMs` (already drained to now), as the limiters'
 * result: `consumedPoints` the points missing (fractional), `remainingPoints` those left,
 * `msBeforeNext` the time until the bucket is full again.
 */
export function bucketResult(shape: BucketShape, levelMs: number): RateLimiterRes {
  const interval = bucketInterval(shape);
  const level = Math.max(0, levelMs);
  const consumed = level / interval;
  return new RateLimiterRes(Math.max(0, shape.points - consumed), level, consumed, false);
}

/**
 * The refusal of a take of `points` on a bucket at `levelMs`: `msBeforeNext` is how long until
 * the take would fit (the real wait, about one interval per missing point).
 */
export function bucketRefusal(shape: BucketShape, levelMs: number, points: number): RateLimiterRes {
  const interval = bucketInterval(shape);
  const level = Math.max(0, levelMs);
  const wait = level + points * interval - shape.points * interval;
  const consumed = level / interval;
  return new RateLimiterRes(
    Math.max(0, shape.points - consumed),
    Math.max(0, wait),
    consumed,
    false,
  );
}

/** Whether adding `points` to a bucket at `levelMs` stays within the bucket. */
export function bucketFits(shape: BucketShape, levelMs: number, points: number): boolean {
  const interval = bucketInterval(shape);
  // A thousandth of an interval of slack absorbs floating-point error in the level.
  return Math.max(0, levelMs) + points * interval <= shape.points * interval + interval / 1000;
}

/** Keys whose bucket is kept; past this many, full buckets are swept out. */
const SWEEP_AT_KEYS = 10_000;

/**
 * Token buckets in this process's memory (GCRA: one number per key, the time its bucket is
 * full again), a `Limiter` of `rate-limits.ts`. `consume` refuses without taking anything (a refused request costs nothing);
 * `penalty` always takes. Keys whose bucket is full are forgotten.
 *
 * @example
 * const buckets = new MemoryTokenBuckets({ points: 200, durationSeconds: 2 }); // 100/s, burst 200
 * await buckets.consume('env#1'); // rejects with a RateLimiterRes once the bucket is empty
 */
export class MemoryTokenBuckets {
  readonly points: number;
  readonly #shape: BucketShape;
  readonly #interval: number;
  readonly #now: () => number;
  /** Per key: when (epoch ms) its bucket is full again. */
  readonly #fullAt = new Map<string, number>();

  constructor(shape: BucketShape, now: () => number = Date.now) {
    if (!(shape.points > 0 && shape.durationSeconds > 0)) {
      throw new RangeError('a token bucket needs points > 0 and durationSeconds > 0');
    }
    this.points = shape.points;
    this.#shape = shape;
    this.#interval = bucketInterval(shape);
    this.#now = now;
  }

  async consume(key: string, points = 1): Promise<RateLimiterRes> {
    return this.consumeNow(key, points);
  }

  /** `consume` without a promise: the state, or a RateLimiterRes thrown when it does not fit. */
  consumeNow(key: string, points = 1): RateLimiterRes {
    const now = this.#now();
    const level = this.#level(key, now);
    if (!bucketFits(this.#shape, level, points)) {
      throw bucketRefusal(this.#shape, level, points);
    }
    return this.#add(key, now, level, points);
  }

  async penalty(key: string, points = 1): Promise<RateLimiterRes> {
    const now = this.#now();
    return this.#add(key, now, this.#level(key, now), points);
  }

  async get(key: string): Promise<RateLimiterRes | null> {
    const level = this.#level(key, this.#now());
    return level > 0 ? bucketResult(this.#shape, level) : null;
  }

  #level(key: string, now: number): number {
    const fullAt = this.#fullAt.get(key);
    return fullAt === undefined ? 0 : Math.max(0, fullAt - now);
  }

  #add(key: string, now: number, level: number, points: number): RateLimiterRes {
    const next = level + points * this.#interval;
    if (this.#fullAt.size >= SWEEP_AT_KEYS && !this.#fullAt.has(key)) this.#sweep(now);
    this.#fullAt.set(key, now + next);
    return bucketResult(this.#shape, next);
  }

  #sweep(now: number): void {
    for (const [key, fullAt] of this.#fullAt) {
      if (fullAt <= now) this.#fullAt.delete(key);
    }
  }
}
