import { RATE_LIMIT_HEADERS } from '@plant-store/schema';
import type { RateLimitConfig } from '../config.ts';
import { ApiError } from '../http/api-error.ts';
import type { RateLimitName } from '../observability/metrics.ts';
import { RateLimiterMemory, RateLimiterRes } from './flexible.ts';
import { boundedKey } from './key.ts';
import { MemoryTokenBuckets } from './token-bucket.ts';

/**
 * What a backend needs to make one limiter: `points` per `durationSeconds`, keys prefixed.
 * `refill` says how used points come back:
 * - `window` (the default): all at once when the key's fixed window of `durationSeconds` ends
 *   (rate-limiter-flexible's counting);
 * - `smooth`: one at a time, one every `durationSeconds / points`: a token bucket of `points`
 *   (GCRA; see `token-bucket.ts`). `consume` then refuses without taking anything, and a
 *   refusal's `msBeforeNext` is the wait until the request would fit; a success's is the time
 *   until the bucket is full again.
 * Every field is plain data, so a spec can be sent to another process (cluster IPC).
 */
export interface LimiterSpec {
  readonly keyPrefix: string;
  readonly points: number;
  readonly durationSeconds: number;
  readonly refill?: 'window' | 'smooth';
}

/**
 * The part of a rate-limiter-flexible limiter the limits use (RateLimiterMemory has it). A
 * result or refusal is a RateLimiterRes: four plain numbers/booleans (`remainingPoints`,
 * `msBeforeNext`, `consumedPoints`, `isFirstInDuration`); for a `smooth` limiter the point
 * counts may be fractional.
 */
export interface Limiter {
  /** Points (requests) allowed per window, or the size of the bucket. */
  readonly points: number;
  /** Takes `points` from `key`; rejects with a RateLimiterRes when that goes over the limit. */
  consume(key: string, points?: number): Promise<RateLimiterRes>;
  /** Adds `points` to `key` without ever rejecting for the limit. */
  penalty(key: string, points?: number): Promise<RateLimiterRes>;
  /** The state of `key`, or null when it has none in the current window (or a full bucket). */
  get(key: string): Promise<RateLimiterRes | null>;
  /**
   * `consume` decided at once, without a promise (limiters whose counts are in this process):
   * returns the state, throws a RateLimiterRes when that goes over the limit.
   */
  consumeNow?(key: string, points?: number): RateLimiterRes;
}

/**
 * Where the counters of the limits live. `memory` counts in this process (one instance, or
 * SQLite mode); a shared backend (PostgreSQL, see `postgres-backend.ts`) lets every
 * instance see the same counts. Each must make both kinds of `LimiterSpec.refill`.
 */
export interface RateLimitBackend {
  readonly kind: string;
  /**
   * Every count of this backend is made by this process (the in-memory one): the limits may
   * then skip asking it about a key they never counted.
   */
  readonly local?: boolean;
  /** A limiter for `spec`, ready to use. */
  limiter(spec: LimiterSpec): Promise<Limiter>;
  /** Releases what the backend holds (connections). */
  close(): Promise<void>;
}

/**
 * Counters in this process's memory: fixed windows by rate-limiter-flexible's
 * RateLimiterMemory, token buckets by `MemoryTokenBuckets`.
 */
export const memoryBackend: RateLimitBackend = {
  kind: 'memory',
  local: true,
  limiter: async (spec) =>
    spec.refill === 'smooth'
      ? new MemoryTokenBuckets(spec)
      : new RateLimiterMemory({
          keyPrefix: spec.keyPrefix,
          points: spec.points,
          duration: spec.durationSeconds,
        }),
  close: async () => undefined,
};

/** The counting window of the refused-credential limit. */
export const WINDOW_SECONDS = 60;

/** Addresses whose last refused credential is remembered before stale ones are swept. */
const SWEEP_FAILURES_AT = 10_000;

/** The key prefix (and PostgreSQL table suffix) of the per-credential token buckets. */
export const CREDENTIAL_BUCKET_PREFIX = 'rl_token_bucket';

/** Where a credential stands with its limit: what the rate-limit headers say. */
export interface CredentialAllowance {
  /** Requests per second the credential may sustain (RATE_LIMIT_PER_SECOND). */
  readonly limit: number;
  /** Whole requests it may send right now without waiting (at most RATE_LIMIT_BURST). */
  readonly remaining: number;
  /** Whole seconds (rounded up) until `remaining` is back at RATE_LIMIT_BURST. */
  readonly resetSeconds: number;
}

/**
 * The rate-limit headers of an authenticated answer (names from the schema package).
 *
 * @example
 * rateLimitHeaders({ limit: 100, remaining: 199, resetSeconds: 1 });
 * // { 'X-RateLimit-Limit': '100', 'X-RateLimit-Remaining': '199', 'X-RateLimit-Reset': '1' }
 */
export function rateLimitHeaders(allowance: CredentialAllowance): Record<string, string> {
  return {
    [RATE_LIMIT_HEADERS.limit]: String(allowance.limit),
    [RATE_LIMIT_HEADERS.remaining]: String(allowance.remaining),
    [RATE_LIMIT_HEADERS.reset]: String(allowance.resetSeconds),
  };
}

export interface RateLimitsOptions {
  /** Told about every 429 (metrics). */
  readonly onLimited?: (limit: RateLimitName) => void;
  /** The clock of the refused-credential window's shortcut (epoch ms); `Date.now` by default. */
  readonly now?: () => number;
}

/**
 * The two request limits of the API:
 * - per credential: a token bucket of `burst` requests refilled at `perSecond` (GCRA): a
 *   client may send `burst` at once, then `perSecond` sustained. A refusal's `Retry-After` is
 *   the real wait for the next request, about 1/`perSecond` rounded up to whole seconds
 *   (usually 1). Every answer to an authenticated request carries the allowance headers;
 * - per client address: at most `authFailuresPerMinute` requests whose credential was refused
 *   (401), over a fixed one-minute window. Once an address used that up, every request it
 *   makes to an authenticated route is 429 until the window ends — whatever credential it
 *   sends, so a guesser cannot tell a hit from a miss.
 * A limit of 0 is off. Refusals are ApiError `rateLimited` (429) with `Retry-After` seconds.
 *
 * @example
 * const limits = await RateLimits.create({ perSecond: 100, burst: 200, authFailuresPerMinute: 30 });
 * await limits.consumeCredential('env#1'); // throws a 429 ApiError once the bucket is empty
 */
export class RateLimits {
  /**
   * With a local backend: when each address key last had a refused credential counted. An
   * address without one in the last window has no count, so `checkAddressNow` passes it without
   * asking the limiter (a promise saved on every authenticated request). Empty otherwise.
   */
  readonly #lastFailureAt = new Map<string, number>();
  /**
   * Whether the backend is local (see `RateLimitBackend.local`): only then are the limiters'
   * synchronous methods used. A remote backend's limiter may list them too (the cluster's
   * forwards every method of the primary's limiter), but there every call is a promise.
   */
  readonly #local: boolean;

  private constructor(
    private readonly perToken: Limiter | undefined,
    private readonly perSecond: number,
    private readonly authFailures: Limiter | undefined,
    private readonly backend: RateLimitBackend,
    private readonly onLimited: (limit: RateLimitName) => void,
    private readonly now: () => number,
  ) {
    this.#local = backend.local === true;
  }

  /** Builds the limits on `backend` (in memory by default). */
  static async create(
    config: RateLimitConfig,
    backend: RateLimitBackend = memoryBackend,
    options: RateLimitsOptions = {},
  ): Promise<RateLimits> {
    const smooth = config.perSecond > 0 && config.burst > 0;
    const [perToken, authFailures] = await Promise.all([
      smooth
        ? backend.limiter({
            keyPrefix: CREDENTIAL_BUCKET_PREFIX,
            points: config.burst,
            durationSeconds: config.burst / config.perSecond,
            refill: 'smooth',
          })
        : undefined,
      config.authFailuresPerMinute > 0
        ? backend.limiter({
            keyPrefix: 'rl_auth_fail',
            points: config.authFailuresPerMinute,
            durationSeconds: WINDOW_SECONDS,
          })
        : undefined,
    ]);
    return new RateLimits(
      perToken,
      config.perSecond,
      authFailures,
      backend,
      options.onLimited ?? (() => undefined),
      options.now ?? Date.now,
    );
  }

  /** Throws 429 when `address` (see `addressKey`) has no refused-credential attempts left. */
  async checkAddress(address: string): Promise<void> {
    if (this.authFailures === undefined) return;
    const state = await this.authFailures.get(boundedKey(address));
    if (state !== null && state.consumedPoints >= this.authFailures.points) {
      this.onLimited('address');
      throw tooManyRequests(state, 'Too many requests with a refused credential from this address');
    }
  }

  /**
   * `checkAddress`, without a promise when the answer is known at once: on a local backend, an
   * address with no refused credential counted in the last window passes (undefined). Otherwise
   * the promise of `checkAddress`.
   */
  checkAddressNow(address: string): Promise<void> | undefined {
    if (this.authFailures === undefined) return undefined;
    if (this.#local) {
      const lastFailureAt = this.#lastFailureAt.get(boundedKey(address));
      if (lastFailureAt === undefined || this.now() - lastFailureAt >= WINDOW_SECONDS * 1000) {
        return undefined;
      }
    }
    return this.checkAddress(address);
  }

  /**
   * Counts one refused credential against `address`; throws 429 when that went over the limit
   * (concurrent attempts that all passed `checkAddress` before any was counted).
   */
  async recordAuthFailure(address: string): Promise<void> {
    if (this.authFailures === undefined) return;
    const key = boundedKey(address);
    this.#noteFailure(key);
    const state = await this.authFailures.penalty(key, 1);
    if (state.consumedPoints > this.authFailures.points) {
      this.onLimited('address');
      throw tooManyRequests(state, 'Too many requests with a refused credential from this address');
    }
  }

  /**
   * Takes one request from the bucket of the credential named `name` and returns what is left
   * (undefined when the limit is off); throws 429, with the same headers, when it is empty.
   */
  async consumeCredential(name: string): Promise<CredentialAllowance | undefined> {
    const limiter = this.perToken;
    if (limiter === undefined) return undefined;
    try {
      return this.#allowance(limiter, await limiter.consume(boundedKey(name), 1));
    } catch (rejection) {
      throw this.#refusal(limiter, rejection);
    }
  }

  /**
   * `consumeCredential`, decided at once when the limiter can on a local backend (the
   * in-memory buckets): the allowance, or the 429 thrown; otherwise the promise of
   * `consumeCredential`.
   */
  consumeCredentialNow(
    name: string,
  ): CredentialAllowance | undefined | Promise<CredentialAllowance | undefined> {
    const limiter = this.perToken;
    if (limiter === undefined) return undefined;
    if (!this.#local || limiter.consumeNow === undefined) return this.consumeCredential(name);
    let state: RateLimiterRes;
    try {
      state = limiter.consumeNow(boundedKey(name), 1);
    } catch (rejection) {
      throw this.#refusal(limiter, rejection);
    }
    return this.#allowance(limiter, state);
  }

  /** A credential's refusal as the 429 (anything else that was thrown, as it was). */
  #refusal(limiter: Limiter, rejection: unknown): unknown {
    if (!(rejection instanceof RateLimiterRes)) return rejection;
    this.onLimited('token');
    return tooManyRequests(
      rejection,
      'Too many requests for this credential',
      rateLimitHeaders(this.#allowance(limiter, rejection, true)),
    );
  }

  #noteFailure(key: string): void {
    if (!this.#local) return;
    const seen = this.#lastFailureAt;
    const now = this.now();
    if (seen.size >= SWEEP_FAILURES_AT && !seen.has(key)) {
      for (const [stale, at] of seen) {
        if (now - at >= WINDOW_SECONDS * 1000) seen.delete(stale);
      }
    }
    seen.set(key, now);
  }

  #allowance(limiter: Limiter, state: RateLimiterRes, refused = false): CredentialAllowance {
    // A refusal's msBeforeNext is the wait for one request; the bucket is full again after
    // all its missing points came back.
    const missing = Math.max(0, limiter.points - state.remainingPoints);
    const fullMs = refused ? (missing * 1000) / this.perSecond : state.msBeforeNext;
    return {
      limit: this.perSecond,
      remaining: Math.max(0, Math.floor(state.remainingPoints + 1e-9)),
      resetSeconds: Math.ceil(fullMs / 1000 - 1e-9),
    };
  }

  /** Releases the backend. */
  close(): Promise<void> {
    return this.backend.close();
  }
}

function tooManyRequests(
  state: RateLimiterRes,
  what: string,
  headers: Record<string, string> = {},
): ApiError {
  const seconds = Math.max(1, Math.ceil(state.msBeforeNext / 1000 - 1e-9));
  return new ApiError(
    'rateLimited',
    `${what}; retry after ${seconds} second${seconds === 1 ? '' : 's'}`,
    {
      ...headers,
      'Retry-After': String(seconds),
    },
  );
}
