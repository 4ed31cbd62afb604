import { ERROR_MESSAGES, RATE_LIMIT_HEADERS } from '@plant-store/schema';
import { BurstyRateLimiter, type RateLimiterLike, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimitConfig } from '../config.ts';
import { ApiError } from '../http/api-error.ts';
import type { RateLimitName } from '../observability/metrics.ts';
import { boundedKey } from './key.ts';
import { type LimiterStore, memoryStore } from './limiter-store.ts';

/** The burst allowance (RATE_LIMIT_BURST − RATE_LIMIT_PER_SECOND) comes back this long after it was first drawn on. */
export const BURST_WINDOW_SECONDS = 60;
/** The window of the refused-credential budget (AUTH_FAILURES_PER_MINUTE). */
export const AUTH_FAILURE_WINDOW_SECONDS = 60;

/** Key prefixes, also the table names in the SQLite side file and PostgreSQL (`limiter-store.ts`). */
export const LIMITER_TABLES = {
  burst: 'rate_limit_burst',
  perSecond: 'rate_limit_per_second',
  authFailures: 'rate_limit_auth_failures',
} as const;

export interface RateLimitsOptions {
  /** Told about every 429 (metrics). */
  readonly onLimited?: (limit: RateLimitName) => void;
}

/** What the limiters that rate-limiter-flexible composes answer to `consume`. */
interface Consumer {
  consume(key: string, points?: number): Promise<RateLimiterRes>;
}

/**
 * The two request limits, on rate-limiter-flexible's limiters (fixed windows); 0 is off:
 * - per credential: a `BurstyRateLimiter` draws on the burst allowance (BURST − PER_SECOND,
 *   back `BURST_WINDOW_SECONDS` after its first use), then on PER_SECOND per second (with
 *   BURST ≤ PER_SECOND: BURST per BURST/PER_SECOND s). `X-RateLimit-Remaining` is what is left
 *   of the allowance; `Retry-After` is the wait until either gives a point back;
 * - per client address: `authFailuresPerMinute` refused credentials, then 429 instead of 401.
 *
 * @example
 * const limits = await RateLimits.create({ perSecond: 100, burst: 200, authFailuresPerMinute: 30 });
 * const headers = await limits.consumeCredential('env#1'); // throws a 429 ApiError when over
 */
export class RateLimits {
  private constructor(
    private readonly credential: Consumer | undefined,
    private readonly config: RateLimitConfig,
    private readonly authFailures: RateLimiterLike | undefined,
    private readonly store: LimiterStore,
    private readonly onLimited: (limit: RateLimitName) => void,
  ) {}

  /** Builds the limits with limiters from `store` (this process's memory by default). */
  static async create(
    config: RateLimitConfig,
    store: LimiterStore = memoryStore,
    options: RateLimitsOptions = {},
  ): Promise<RateLimits> {
    const { perSecond, burst, authFailuresPerMinute } = config;
    let credential: Consumer | undefined;
    if (perSecond > 0 && burst > perSecond) {
      const [allowance, rate] = await Promise.all([
        store.limiter({
          keyPrefix: LIMITER_TABLES.burst,
          points: burst - perSecond,
          duration: BURST_WINDOW_SECONDS,
        }),
        store.limiter({ keyPrefix: LIMITER_TABLES.perSecond, points: perSecond, duration: 1 }),
      ]);
      credential = new BurstyRateLimiter(allowance, rate);
    } else if (perSecond > 0) {
      credential = await store.limiter({
        keyPrefix: LIMITER_TABLES.perSecond,
        points: burst,
        duration: Math.round((burst * 1000) / perSecond) / 1000, // whole ms: PostgreSQL stores them
      });
    }
    const authFailures =
      authFailuresPerMinute > 0
        ? await store.limiter({
            keyPrefix: LIMITER_TABLES.authFailures,
            points: authFailuresPerMinute,
            duration: AUTH_FAILURE_WINDOW_SECONDS,
          })
        : undefined;
    return new RateLimits(
      credential,
      config,
      authFailures,
      store,
      options.onLimited ?? (() => undefined),
    );
  }

  /**
   * Counts one request of the credential named `name`; resolves with the `X-RateLimit-*`
   * headers (undefined when the limit is off), or throws the 429 (with those headers).
   */
  async consumeCredential(name: string): Promise<Record<string, string> | undefined> {
    if (this.credential === undefined) return undefined;
    try {
      return this.#headers(await this.credential.consume(boundedKey(name)));
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      this.onLimited('token');
      throw tooManyRequests(rejection, 'credential', {
        ...this.#headers(rejection),
        [RATE_LIMIT_HEADERS.remaining]: '0',
      });
    }
  }

  /**
   * Counts one refused credential against `address` (see `addressKey`); throws 429 once the
   * address has used its budget, and returns otherwise (the caller then answers 401).
   */
  async recordAuthFailure(address: string): Promise<void> {
    if (this.authFailures === undefined) return;
    try {
      await this.authFailures.consume(boundedKey(address));
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      this.onLimited('address');
      throw tooManyRequests(rejection, 'refused credential');
    }
  }

  /** The headers of a credential's state: its rate, what is left of the burst allowance, when more comes back. */
  #headers(state: RateLimiterRes): Record<string, string> {
    const withAllowance = this.config.burst > this.config.perSecond;
    return {
      [RATE_LIMIT_HEADERS.limit]: String(this.config.perSecond),
      [RATE_LIMIT_HEADERS.remaining]: String(withAllowance ? state.remainingPoints : 0),
      [RATE_LIMIT_HEADERS.reset]: String(Math.max(0, Math.ceil(state.msBeforeNext / 1000))),
    };
  }

  /** Releases the store (its SQLite side file or PostgreSQL pool). */
  close(): Promise<void> {
    return this.store.close();
  }
}

function tooManyRequests(
  state: RateLimiterRes,
  who: 'credential' | 'refused credential',
  headers: Record<string, string> = {},
): ApiError {
  const seconds = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
  return new ApiError('rateLimited', ERROR_MESSAGES.rateLimited(who, seconds), {
    ...headers,
    'Retry-After': String(seconds),
  });
}
