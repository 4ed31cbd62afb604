import { ERROR_MESSAGES, RATE_LIMIT_HEADERS } from '@plant-store/schema';
import type { RateLimitConfig } from '../config.ts';
import { ApiError } from '../http/api-error.ts';
import type { RateLimitName } from '../observability/metrics.ts';
import { boundedKey } from './key.ts';
import { type CountStore, type Decision, memoryCounts, SharedCounts } from './shared-counts.ts';

/** The burst allowance (RATE_LIMIT_BURST − RATE_LIMIT_PER_SECOND) comes back this long after it was first drawn on. */
export const BURST_WINDOW_SECONDS = 60;
/** The window of the refused-credential budget (AUTH_FAILURES_PER_MINUTE). */
export const AUTH_FAILURE_WINDOW_SECONDS = 60;

export interface RateLimitsOptions {
  /** Told about every 429 (metrics). */
  readonly onLimited?: (limit: RateLimitName) => void;
  /** Told when the shared store fails (the process then counts in its own memory). */
  readonly onStoreError?: (error: unknown) => void;
}

/**
 * The request limits, as fixed windows counted in the database every process shares (see
 * SharedCounts); 0 turns a limit off:
 * - per credential: first the burst allowance (BURST − PER_SECOND, back `BURST_WINDOW_SECONDS`
 *   after its first use), then PER_SECOND per second (with BURST ≤ PER_SECOND: BURST per
 *   BURST/PER_SECOND s). `X-RateLimit-Remaining` is what is left of the allowance;
 *   `Retry-After` is the wait until either gives a point back;
 * - per client address: `authFailuresPerMinute` refused credentials, then 429 instead of 401;
 * - per client address, on requests without a credential (/healthz, /readyz, the reference and
 *   its files, /openapi.json, 404s): ANONYMOUS_PER_SECOND and ANONYMOUS_BURST the same way, far
 *   above what a browser or a balancer's checks send, far below what floods the process.
 *
 * @example
 * const limits = RateLimits.create({ perSecond: 100, burst: 200, authFailuresPerMinute: 30 });
 * const headers = await limits.consumeCredential('env#1'); // throws a 429 ApiError when over
 */
export class RateLimits {
  readonly #counts: SharedCounts;
  readonly #config: RateLimitConfig;
  readonly #onLimited: (limit: RateLimitName) => void;

  private constructor(config: RateLimitConfig, store: CountStore, options: RateLimitsOptions) {
    this.#config = config;
    this.#counts = new SharedCounts(store, options.onStoreError);
    this.#onLimited = options.onLimited ?? (() => undefined);
  }

  /** The limits on `store` (this process's memory by default). */
  static create(
    config: RateLimitConfig,
    store: CountStore = memoryCounts(),
    options: RateLimitsOptions = {},
  ): RateLimits {
    return new RateLimits(config, store, options);
  }

  /**
   * Counts one request of the credential named `name`; resolves with the `X-RateLimit-*`
   * headers (undefined when the limit is off), or throws the 429 (with those headers).
   */
  async consumeCredential(name: string): Promise<Record<string, string> | undefined> {
    const { perSecond, burst } = this.#config;
    if (perSecond === 0) return undefined;
    const decision = await this.#bursty(`c:${boundedKey(name)}`, perSecond, burst);
    const headers = {
      [RATE_LIMIT_HEADERS.limit]: String(perSecond),
      [RATE_LIMIT_HEADERS.remaining]: String(burst > perSecond ? decision.remaining : 0),
      [RATE_LIMIT_HEADERS.reset]: String(Math.max(0, Math.ceil(decision.msBeforeNext / 1000))),
    };
    if (decision.allowed) return headers;
    this.#onLimited('token');
    throw tooManyRequests(decision, 'credential', headers);
  }

  /**
   * Counts one refused credential against `address` (see `addressKey`); throws 429 once the
   * address has used its budget, and returns otherwise (the caller then answers 401).
   */
  async recordAuthFailure(address: string): Promise<void> {
    const budget = this.#config.authFailuresPerMinute;
    if (budget === 0) return;
    const key = `f:${boundedKey(address)}`;
    const decision = await this.#counts.consume(key, budget, AUTH_FAILURE_WINDOW_SECONDS * 1000);
    if (decision.allowed) return;
    this.#onLimited('address');
    throw tooManyRequests(decision, 'refused credential');
  }

  /** Counts one request without a credential from `address`; throws 429 past its limit. */
  async consumeAnonymous(address: string): Promise<void> {
    if (this.#config.anonymous === undefined) return;
    const { perSecond, burst } = this.#config.anonymous;
    const decision = await this.#bursty(`a:${boundedKey(address)}`, perSecond, burst);
    if (decision.allowed) return;
    this.#onLimited('address');
    throw tooManyRequests(decision, 'address');
  }

  /** The allowance first (burst − perSecond a minute), then perSecond a second. */
  async #bursty(key: string, perSecond: number, burst: number): Promise<Decision> {
    if (burst <= perSecond) {
      // Whole ms: the window is stored in ms.
      return this.#counts.consume(`${key}:s`, burst, Math.round((burst * 1000) / perSecond));
    }
    const allowance = await this.#counts.consume(
      `${key}:b`,
      burst - perSecond,
      BURST_WINDOW_SECONDS * 1000,
    );
    if (allowance.allowed) return allowance;
    const rate = await this.#counts.consume(`${key}:s`, perSecond, 1000);
    return {
      allowed: rate.allowed,
      remaining: 0,
      msBeforeNext: Math.min(allowance.msBeforeNext, rate.msBeforeNext),
    };
  }

  close(): void {
    this.#counts.close();
  }
}

function tooManyRequests(
  state: Decision,
  who: 'credential' | 'refused credential' | 'address',
  headers: Record<string, string> = {},
): ApiError {
  const seconds = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
  return new ApiError('rateLimited', ERROR_MESSAGES.rateLimited(who, seconds), {
    ...headers,
    'Retry-After': String(seconds),
  });
}
