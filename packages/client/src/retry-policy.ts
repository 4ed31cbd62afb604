import type { AttemptOutcome } from './attempt-outcome.ts';

/** How failed attempts are retried. */
export interface RetryPolicy {
  /** Retries after the first attempt (so at most `retries + 1` requests). */
  readonly retries: number;
  /** Wait before the first retry; doubled for each next one. */
  readonly retryDelayMs: number;
  /** Longest wait between attempts. A `Retry-After` asking for more is not waited for. */
  readonly maxRetryDelayMs: number;
}

/** Statuses that say "the server or a gateway is briefly unavailable": worth another try. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/**
 * Milliseconds to wait before retry number `retry` (1 for the first retry) after `outcome`,
 * or `undefined` when the outcome is final.
 *
 * Retried: no response (connection refused or dropped, timeout) and 502/503/504. The wait is
 * `retryDelayMs * 2^(retry-1)`, capped at `maxRetryDelayMs`, and at least the response's
 * `Retry-After`; a `Retry-After` longer than `maxRetryDelayMs` ends the retries so the caller
 * can see it (`PlantStoreError.retryAfter`) and decide.
 *
 * @example
 * const policy = { retries: 2, retryDelayMs: 100, maxRetryDelayMs: 5_000 };
 * nextRetryDelay(policy, { kind: 'failure', error, timedOut: false }, 2); // 200
 */
export function nextRetryDelay(
  policy: RetryPolicy,
  outcome: AttemptOutcome,
  retry: number,
): number | undefined {
  if (retry > policy.retries) return undefined;
  if (outcome.kind === 'response' && !RETRYABLE_STATUSES.has(outcome.status)) return undefined;
  const backoff = Math.min(policy.retryDelayMs * 2 ** (retry - 1), policy.maxRetryDelayMs);
  if (outcome.kind === 'failure' || outcome.retryAfter === undefined) return backoff;
  const asked = outcome.retryAfter * 1000;
  return asked > policy.maxRetryDelayMs ? undefined : Math.max(backoff, asked);
}
