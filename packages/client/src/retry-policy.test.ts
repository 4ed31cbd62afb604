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

  it('retries 429, 502, 503 and 504 only: never another 4xx, a 500 or a success', () => {
    for (const status of [429, 502, 503, 504])
      expect(nextRetryDelay(policy, response(status), 1)).toBe(100);
    const final = [200, 201, 400, 401, 403, 404, 405, 408, 409, 413, 415, 422, 428, 431, 500, 501];
    for (const status of final) {
      expect(nextRetryDelay(policy, response(status), 1)).toBeUndefined();
      expect(nextRetryDelay(policy, response(status, 0), 1)).toBeUndefined();
    }
  });

  it('caps the backoff at maxRetryDelayMs', () => {
    const many = { ...policy, retries: 10 };
    expect(nextRetryDelay(many, failure, 8)).toBe(1_000);
  });

  it.each([429, 503])(
    'waits at least the Retry-After of a %i, and gives up when it asks for more than the cap',
    (status) => {
      expect(nextRetryDelay(policy, response(status, 0), 2)).toBe(200);
      expect(nextRetryDelay(policy, response(status, 1), 1)).toBe(1_000);
      expect(nextRetryDelay(policy, response(status, 2), 1)).toBeUndefined();
      expect(nextRetryDelay({ ...policy, maxRetryDelayMs: 2_000 }, response(status, 2), 1)).toBe(
        2_000,
      );
    },
  );

  it('still counts retries when Retry-After is short', () => {
    expect(nextRetryDelay(policy, response(429, 1), 3)).toBe(1_000);
    expect(nextRetryDelay(policy, response(429, 1), 4)).toBeUndefined();
  });

  it('never retries when retries is 0', () => {
    expect(nextRetryDelay({ ...policy, retries: 0 }, failure, 1)).toBeUndefined();
  });
});
