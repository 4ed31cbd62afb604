import { describe, expect, it } from 'vitest';
import type { AttemptOutcome } from './attempt-outcome.ts';
import { sendWithRetries } from './send-with-retries.ts';

const policy = { retries: 2, retryDelayMs: 10, maxRetryDelayMs: 1_000 };
const failure: AttemptOutcome = { kind: 'failure', error: new Error('reset'), timedOut: false };
const ok: AttemptOutcome = {
  kind: 'response',
  status: 200,
  statusText: 'OK',
  contentType: 'application/json',
  retryAfter: undefined,
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
    await expect(sendWithRetries(run.attempt, policy, run.sleep)).resolves.toEqual({
      outcome: ok,
      attempts: 2,
    });
    expect(run.sleeps).toEqual([10]);
  });

  it('stops after the retries, backing off exponentially', async () => {
    const run = playback([failure]);
    await expect(sendWithRetries(run.attempt, policy, run.sleep)).resolves.toEqual({
      outcome: failure,
      attempts: 3,
    });
    expect(run.sleeps).toEqual([10, 20]);
  });
});
