import { describe, expect, it } from 'vitest';
import type { AttemptOutcome } from './attempt-outcome.ts';
import { nextRetryDelay, type RetryPolicy } from './retry-policy.ts';

const policy: RetryPolicy = { retries: 3, retryDelayMs: 100, maxRetryDelayMs: 1_000 };
const failure: AttemptOutcome = { kind: 'failure', error: new Error('x'), timedOut: false };

function response(status: number, retryAfter?: number): AttemptOutcome {
  return { kind: 'response', status, statusText: '', contentType: undefined, retryAfter, text: '' };
}

describe('nextRetryDelay', () => {
  it('backs off exponentially for failures, up to the retry count', () => {
    expect([1, 2, 3, 4].map((retry) => nextRetryDelay(policy, failure, retry))).toEqual([
      100,
      200,
      400,
      undefined,
    ]);
  });

  it('retries 502, 503 and 504 only', () => {
    for (const status of [502, 503, 504])
      expect(nextRetryDelay(policy, response(status), 1)).toBe(100);
    for (const status of [200, 400, 401, 409, 429, 500, 501]) {
      expect(nextRetryDelay(policy, response(status), 1)).toBeUndefined();
    }
  });

  it('caps the backoff at maxRetryDelayMs', () => {
    const many = { ...policy, retries: 10 };
    expect(nextRetryDelay(many, failure, 8)).toBe(1_000);
  });

  it('waits at least Retry-After, and gives up when it asks for more than the cap', () => {
    expect(nextRetryDelay(policy, response(503, 0), 2)).toBe(200);
    expect(nextRetryDelay(policy, response(503, 1), 1)).toBe(1_000);
    expect(nextRetryDelay(policy, response(503, 2), 1)).toBeUndefined();
  });

  it('never retries when retries is 0', () => {
    expect(nextRetryDelay({ ...policy, retries: 0 }, failure, 1)).toBeUndefined();
  });
});
