import { describe, expect, it } from 'vitest';
import {
  type AttemptOutcome,
  nextRetryDelay,
  parseRetryAfter,
  type RetryPolicy,
  sendWithRetries,
} from './retry.ts';

describe('parseRetryAfter', () => {
  it('reads delta-seconds', () => {
    expect(parseRetryAfter('0')).toBe(0);
    expect(parseRetryAfter(' 120 ')).toBe(120);
  });

  it('reads an HTTP date relative to now, rounding up and never below 0', () => {
    const now = Date.parse('Wed, 21 Oct 2015 07:27:58 GMT');
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', now)).toBe(2);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', now + 500)).toBe(2);
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:27:00 GMT', now)).toBe(0);
  });

  it('gives undefined for no header or a value it cannot read', () => {
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter('-1')).toBeUndefined();
    expect(parseRetryAfter('1.5')).toBeUndefined();
    expect(parseRetryAfter('9'.repeat(30))).toBeUndefined();
  });
});

const policy: RetryPolicy = { retries: 3, retryDelayMs: 100, maxRetryDelayMs: 1_000 };
const dropped: AttemptOutcome = { kind: 'failure', error: new Error('x'), timedOut: false };

function response(status: number, retryAfter?: number): AttemptOutcome {
  return {
    kind: 'response',
    status,
    statusText: '',
    contentType: undefined,
    retryAfter,
    headers: new Headers(),
    text: '',
  };
}

describe('nextRetryDelay', () => {
  it('backs off exponentially for failures, up to the retry count', () => {
    expect([1, 2, 3, 4].map((retry) => nextRetryDelay(policy, dropped, retry))).toEqual([
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
    expect(nextRetryDelay(many, dropped, 8)).toBe(1_000);
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
    expect(nextRetryDelay({ ...policy, retries: 0 }, dropped, 1)).toBeUndefined();
  });
});

const sendPolicy: RetryPolicy = { retries: 2, retryDelayMs: 10, maxRetryDelayMs: 1_000 };
const failure: AttemptOutcome = { kind: 'failure', error: new Error('reset'), timedOut: false };
const ok: AttemptOutcome = {
  kind: 'response',
  status: 200,
  statusText: 'OK',
  contentType: 'application/json',
  retryAfter: undefined,
  headers: new Headers(),
  text: '{}',
};

/** An attempt function that plays back `outcomes` in order, recording the sleeps between. */
function playback(outcomes: AttemptOutcome[]) {
  const sleeps: number[] = [];
  let next = 0;
  return {
    sleeps,
    attempt: async () => outcomes[Math.min(next++, outcomes.length - 1)] ?? failure,
    sleep: async (ms: number) => {
      sleeps.push(ms);
    },
  };
}

describe('sendWithRetries', () => {
  it('returns the first final outcome with the attempt count', async () => {
    const run = playback([failure, ok]);
    await expect(sendWithRetries(run.attempt, sendPolicy, run.sleep)).resolves.toEqual({
      outcome: ok,
      attempts: 2,
    });
    expect(run.sleeps).toEqual([10]);
  });

  it('stops after the retries, backing off exponentially', async () => {
    const run = playback([failure]);
    await expect(sendWithRetries(run.attempt, sendPolicy, run.sleep)).resolves.toEqual({
      outcome: failure,
      attempts: 3,
    });
    expect(run.sleeps).toEqual([10, 20]);
  });
});
