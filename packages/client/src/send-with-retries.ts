import type { AttemptOutcome } from './attempt-outcome.ts';
import { nextRetryDelay, type RetryPolicy } from './retry-policy.ts';

/** The final outcome, and how many attempts it took. */
export interface RetriedOutcome {
  readonly outcome: AttemptOutcome;
  readonly attempts: number;
}

/**
 * Runs `attempt` until its outcome is final under `policy` (see {@link nextRetryDelay}),
 * waiting between attempts.
 *
 * Retries are done here rather than by ofetch's `retry` option because ofetch 1.5 counts a
 * request with no response as status 500 (so retrying network failures would also retry real
 * 500s) and reuses the first attempt's already-aborted timeout signal, so a retry after a
 * timeout fails at once without reaching the server.
 *
 * @example
 * const { outcome, attempts } = await sendWithRetries(() => sendOnce(fetcher, request), policy);
 */
export async function sendWithRetries(
  attempt: () => Promise<AttemptOutcome>,
  policy: RetryPolicy,
  sleep: (ms: number) => Promise<void> = wait,
): Promise<RetriedOutcome> {
  for (let attempts = 1; ; attempts += 1) {
    const outcome = await attempt();
    const delay = nextRetryDelay(policy, outcome, attempts);
    if (delay === undefined) return { outcome, attempts };
    await sleep(delay);
  }
}

function wait(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
