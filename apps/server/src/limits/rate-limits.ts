import { ERROR_MESSAGES, RATE_LIMIT_HEADERS } from '@plant-store/schema';
import { ApiError } from '../api-error.ts';
import type { RateLimitConfig } from '../config.ts';
import type { RateLimitName } from '../observability/metrics.ts';
import { type CountStore, type Decision, SharedCounts } from './shared-counts.ts';

/** The burst allowance (BURST − PER_SECOND) comes back this long after its first use. */
export const BURST_WINDOW_SECONDS = 60;
export const AUTH_FAILURE_WINDOW_SECONDS = 60;

/**
 * Fixed windows in SharedCounts (0 turns a limit off): per credential, a burst allowance, then a
 * rate per second; per address, refused credentials a minute. Keys stay short: a credential's
 * name is `env#N` or at most 64 characters (manage-tokens.ts), an address is an `addressKey`.
 */
export class RateLimits {
  private constructor(
    private readonly config: RateLimitConfig,
    private readonly counts: SharedCounts,
    private readonly onLimited: (limit: RateLimitName) => void = () => undefined,
  ) {}

  static create(
    config: RateLimitConfig,
    store?: CountStore,
    options: {
      readonly onLimited?: (limit: RateLimitName) => void;
      readonly onStoreError?: (error: unknown) => void;
    } = {},
  ): RateLimits {
    return new RateLimits(config, new SharedCounts(store, options.onStoreError), options.onLimited);
  }

  /** The `X-RateLimit-*` headers (undefined when off), or throws the 429 with them. */
  async consumeCredential(name: string): Promise<Record<string, string> | undefined> {
    const { perSecond, burst } = this.config;
    if (perSecond === 0) return undefined;
    const decision = await this.#bursty(`c:${name}`, perSecond, burst);
    const headers = {
      [RATE_LIMIT_HEADERS.limit]: String(perSecond),
      [RATE_LIMIT_HEADERS.remaining]: String(burst > perSecond ? decision.remaining : 0),
      [RATE_LIMIT_HEADERS.reset]: String(Math.max(0, Math.ceil(decision.msBeforeNext / 1000))),
    };
    this.#check(decision, 'credential', headers);
    return headers;
  }

  /**
   * Throws the 429, from memory and before any token lookup, when this process knows `address`
   * spent its refused-credential budget and the token is not `recognised` (asked only then).
   */
  refuseSpentAddress(address: string, recognised: () => boolean): void {
    const msBeforeNext = this.counts.spentUntil(`f:${address}`) - Date.now();
    if (msBeforeNext > 0 && !recognised())
      this.#check({ allowed: false, remaining: 0, msBeforeNext }, 'refused credential');
  }

  /** Counts a refused credential against `address`; throws the 429 past its budget. */
  async recordAuthFailure(address: string): Promise<void> {
    const budget = this.config.authFailuresPerMinute;
    if (budget === 0) return;
    const key = `f:${address}`;
    this.#check(
      await this.counts.consume(key, budget, AUTH_FAILURE_WINDOW_SECONDS * 1000),
      'refused credential',
    );
  }

  async #bursty(key: string, perSecond: number, burst: number): Promise<Decision> {
    if (burst <= perSecond) {
      return this.counts.consume(`${key}:s`, burst, Math.round((burst * 1000) / perSecond));
    }
    const window = BURST_WINDOW_SECONDS * 1000;
    const allowance = await this.counts.consume(`${key}:b`, burst - perSecond, window);
    if (allowance.allowed) return allowance;
    const rate = await this.counts.consume(`${key}:s`, perSecond, 1000);
    return {
      allowed: rate.allowed,
      remaining: 0,
      msBeforeNext: Math.min(allowance.msBeforeNext, rate.msBeforeNext),
    };
  }

  /** Past the limit, throws the 429 with Retry-After and `headers`. */
  #check(decision: Decision, who: 'credential' | 'refused credential', headers = {}) {
    if (decision.allowed) return;
    this.onLimited(who === 'credential' ? 'token' : 'address');
    const seconds = Math.max(1, Math.ceil(decision.msBeforeNext / 1000));
    const message = ERROR_MESSAGES.rateLimited(who, seconds);
    throw new ApiError('rateLimited', message, { ...headers, 'Retry-After': String(seconds) });
  }

  close(): void {
    this.counts.close();
  }
}
