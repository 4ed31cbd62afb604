import type { AttemptOutcome } from './attempt-outcome.ts';

/** How failed attempts are retried. */
export interface RetryPolicy {
  /** Retries after the first attempt (so at most `retries + 1` requests). */
  readonly retries: number;
  /** Wait before the first retry; doubled for each next one. */
  readonly retryDelayMs: number;
  /**
   * Longest wait between attempts: caps the backoff, and is the most a `Retry-After` may ask
   * for. A `Retry-After` asking for more is not waited for: the retries end there.
   */
  readonly maxRetryDelayMs: number;
}

/**
 * Statuses worth another try: "too many requests, come back later" (429) and "the server or a
 * gateway is briefly unavailable" (502/503/504). Every other 4xx is the request's own fault and
 * would fail the same way again; a 500 is a server bug, not a passing state.
 */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/**
 * Milliseconds to wait before retry number `retry` (1 for the first retry) after `outcome`,
 * or `undefined` when the outcome is final.
 *
 * Retried: no response (connection refused or dropped, timeout), 429, and 502/503/504 — never
 * another 4xx. The wait is `retryDelayMs * 2^(retry-1)`, capped at `maxRetryDelayMs`, and at
 * least the response's `Retry-After` (delta-seconds or an HTTP date); a `Retry-After` longer
 * than `maxRetryDelayMs` ends the retries so the caller can see it
 * (`PlantStoreError.retryAfter`) and come back when it says.
 *
 * Resending is safe: a retry sends the same bytes, and the API's operations are idempotent for
 * an identical request (`POST /plants` with the same id, name and tag answers 200 again with
 * the same plant, never a second plant nor a 409). A 429 is answered before the request is
 * handled, so nothing was stored by it.
 *
 * @example
 * const policy = { retries: 2, retryDelayMs: 100, maxRetryDelayMs: 5_000 };
 * nextRetryDelay(policy, { kind: 'failure', error, timedOut: false }, 2); // 200
 * nextRetryDelay(policy, { kind: 'response', status: 429, retryAfter: 1, … }, 1); // 1000
 * nextRetryDelay(policy, { kind: 'response', status: 429, retryAfter: 60, … }, 1); // undefined
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
