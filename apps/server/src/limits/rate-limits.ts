import type { RateLimitConfig } from '../config.ts';
import { ApiError } from '../http/api-error.ts';
import type { RateLimitName } from '../observability/metrics.ts';
import { RateLimiterMemory, RateLimiterRes } from './flexible.ts';
import { boundedKey } from './key.ts';

/** What a backend needs to make one limiter: `points` per `durationSeconds`, keys prefixed. */
export interface LimiterSpec {
  readonly keyPrefix: string;
  readonly points: number;
  readonly durationSeconds: number;
}

/** The part of a rate-limiter-flexible limiter the limits use (RateLimiterMemory has it). */
export interface Limiter {
  /** Points (requests) allowed per window. */
  readonly points: number;
  /** Takes `points` from `key`; rejects with a RateLimiterRes when that goes over the limit. */
  consume(key: string, points?: number): Promise<RateLimiterRes>;
  /** Adds `points` to `key` without ever rejecting for the limit. */
  penalty(key: string, points?: number): Promise<RateLimiterRes>;
  /** The state of `key`, or null when it has none in the current window. */
  get(key: string): Promise<RateLimiterRes | null>;
}

/**
 * Where the counters of the limits live. `memory` counts in this process (one instance, or
 * SQLite mode); a shared backend (PostgreSQL, see `postgres-backend.ts`) lets every
 * instance see the same counts. Any rate-limiter-flexible limiter fits.
 */
export interface RateLimitBackend {
  readonly kind: string;
  /** A limiter for `spec`, ready to use. */
  limiter(spec: LimiterSpec): Promise<Limiter>;
  /** Releases what the backend holds (connections). */
  close(): Promise<void>;
}

/** Counters in this process's memory (rate-limiter-flexible's RateLimiterMemory). */
export const memoryBackend: RateLimitBackend = {
  kind: 'memory',
  limiter: async (spec) =>
    new RateLimiterMemory({
      keyPrefix: spec.keyPrefix,
      points: spec.points,
      duration: spec.durationSeconds,
    }),
  close: async () => undefined,
};

/** The counting window of both limits. */
export const WINDOW_SECONDS = 60;

export interface RateLimitsOptions {
  /** Told about every 429 (metrics). */
  readonly onLimited?: (limit: RateLimitName) => void;
}

/**
 * The two request limits of the API, each over a fixed one-minute window:
 * - per credential: at most `perTokenPerMinute` authenticated requests;
 * - per client address: at most `authFailuresPerMinute` requests whose credential was refused
 *   (401). Once an address used that up, every request it makes to an authenticated route is
 *   429 until the window ends — whatever credential it sends, so a guesser cannot tell a hit
 *   from a miss.
 * A limit of 0 is off. Refusals are ApiError `rateLimited` (429) with `Retry-After` seconds.
 *
 * @example
 * const limits = await RateLimits.create({ perTokenPerMinute: 600, authFailuresPerMinute: 30 });
 * await limits.consumeCredential('env#1'); // throws a 429 ApiError once over the limit
 */
export class RateLimits {
  private constructor(
    private readonly perToken: Limiter | undefined,
    private readonly authFailures: Limiter | undefined,
    private readonly backend: RateLimitBackend,
    private readonly onLimited: (limit: RateLimitName) => void,
  ) {}

  /** Builds the limits on `backend` (in memory by default). */
  static async create(
    config: RateLimitConfig,
    backend: RateLimitBackend = memoryBackend,
    options: RateLimitsOptions = {},
  ): Promise<RateLimits> {
    const make = (keyPrefix: string, points: number) =>
      points > 0
        ? backend.limiter({ keyPrefix, points, durationSeconds: WINDOW_SECONDS })
        : Promise.resolve(undefined);
    const [perToken, authFailures] = await Promise.all([
      make('rl_token', config.perTokenPerMinute),
      make('rl_auth_fail', config.authFailuresPerMinute),
    ]);
    return new RateLimits(perToken, authFailures, backend, options.onLimited ?? (() => undefined));
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
   * Counts one refused credential against `address`; throws 429 when that went over the limit
   * (concurrent attempts that all passed `checkAddress` before any was counted).
   */
  async recordAuthFailure(address: string): Promise<void> {
    if (this.authFailures === undefined) return;
    const state = await this.authFailures.penalty(boundedKey(address), 1);
    if (state.consumedPoints > this.authFailures.points) {
      this.onLimited('address');
      throw tooManyRequests(state, 'Too many requests with a refused credential from this address');
    }
  }

  /** Counts one request of the credential named `name`; throws 429 once it is over its limit. */
  async consumeCredential(name: string): Promise<void> {
    if (this.perToken === undefined) return;
    try {
      await this.perToken.consume(boundedKey(name), 1);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      this.onLimited('token');
      throw tooManyRequests(rejection, 'Too many requests for this credential');
    }
  }

  /** Releases the backend. */
  close(): Promise<void> {
    return this.backend.close();
  }
}

function tooManyRequests(state: RateLimiterRes, what: string): ApiError {
  const seconds = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
  return new ApiError('rateLimited', `${what}; retry after ${seconds} seconds`, {
    'Retry-After': String(seconds),
  });
}
