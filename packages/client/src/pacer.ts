import { RATE_LIMIT_HEADERS } from '@plant-store/schema/shapes';
import { type AttemptOutcome, headerNumber, wait } from './retry.ts';

/** What an answer's `X-RateLimit-*` headers said (see `RATE_LIMIT_HEADERS`). */
export interface RateLimitReading {
  /** Requests per second the credential may sustain. */
  readonly limit: number;
  /** Requests it could send right away when the answer was made. */
  readonly remaining: number;
  /** Seconds until `remaining` was back at the full burst. */
  readonly reset: number;
}

/**
 * Reads the rate-limit headers of an answer; `undefined` when they are missing or not
 * whole numbers (the server's limit is off, or another server).
 *
 * @example
 * readRateLimit(new Headers({ 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '7', 'x-ratelimit-reset': '2' }));
 * // { limit: 100, remaining: 7, reset: 2 }
 */
export function readRateLimit(headers: Headers): RateLimitReading | undefined {
  const limit = headerNumber(headers.get(RATE_LIMIT_HEADERS.limit));
  const remaining = headerNumber(headers.get(RATE_LIMIT_HEADERS.remaining));
  const reset = headerNumber(headers.get(RATE_LIMIT_HEADERS.reset));
  if (limit === undefined || limit < 1 || remaining === undefined) return undefined;
  return { limit, remaining, reset: reset ?? 0 };
}

/**
 * Requests kept in hand: below this many left, the pacer sends at the sustained rate, so the
 * jitter of a network path (two requests arriving closer than they were sent) is absorbed.
 */
export const PACING_RESERVE = 2;

/**
 * Paces the requests of the clients given it (`createPlantStoreClient({ …, pacer: new Pacer() })`)
 * on the server's rate-limit headers, so that a client sending as fast as it can (many calls at
 * once, or a loop) is not refused. Opt-in: an app that does not import it does not ship it.
 * Give one `Pacer` to every client that uses the same credential against the same server.
 * - while the last answer left more than `PACING_RESERVE` requests (minus those sent since and
 *   still in flight), requests go at once: the burst is used;
 * - below that, requests are spaced `1 / X-RateLimit-Limit` seconds apart, which is the rate at
 *   which the server's bucket refills; the estimate of what is left grows back with time;
 * - a 429 empties the estimate (its `Retry-After` is waited by the retry of that request);
 * - the very first request goes alone, and the others wait for its answer.
 * A server that sends no such headers is never paced.
 *
 * @example
 * const pacer = new Pacer();
 * const client = createPlantStoreClient({ baseUrl, token, pacer });
 */
export class Pacer {
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #now: () => number;
  /** Requests per second, from the last answer that said; undefined = not paced. */
  #perSecond: number | undefined;
  /** Requests believed to be left at `#updatedAt` (fractional: refills with time). */
  #remaining = 0;
  /** The most `#remaining` can grow back to (the burst, as the headers imply). */
  #burst = 0;
  /** When `#remaining` was last brought up to date. */
  #updatedAt = 0;
  /** When the next paced request may start. */
  #nextSlot = 0;
  #inFlight = 0;
  /**
   * `null` until the first request goes; then, until it is answered, the promise of its answer
   * (one request goes alone to learn the limit); `undefined` once learnt.
   */
  #probe: Promise<unknown> | null | undefined = null;

  /** `sleep` and `now` are for tests (a recorded wait, a fake clock). */
  constructor(sleep: (ms: number) => Promise<void> = wait, now: () => number = Date.now) {
    this.#sleep = sleep;
    this.#now = now;
  }

  /**
   * Sends one attempt of a client's call in its turn (see {@link send}), learning from the
   * answer's `X-RateLimit-*` headers and whether it was a 429.
   */
  sendAttempt(attempt: () => Promise<AttemptOutcome>): Promise<AttemptOutcome> {
    return this.send(attempt, (outcome) =>
      outcome.kind === 'response'
        ? { reading: readRateLimit(outcome.headers), refused: outcome.status === 429 }
        : { reading: undefined, refused: false },
    );
  }

  /**
   * Waits for this request's turn, sends it with `attempt`, and learns from the answer the
   * rate-limit reading `readingOf` finds (undefined for no answer or no headers).
   */
  async send<T>(
    attempt: () => Promise<T>,
    readingOf: (outcome: T) => { reading: RateLimitReading | undefined; refused: boolean },
  ): Promise<T> {
    // The first request goes alone: many calls at once would otherwise all go before any
    // answer told the limit, and a burst smaller than them would refuse the rest.
    while (this.#probe) await this.#probe;
    const perSecond = this.#perSecond;
    if (perSecond !== undefined) {
      const now = this.#now();
      if (now > this.#updatedAt) {
        this.#remaining = Math.min(
          this.#burst,
          this.#remaining + ((now - this.#updatedAt) / 1000) * perSecond,
        );
        this.#updatedAt = now;
      }
      if (this.#remaining - 1 >= PACING_RESERVE) this.#remaining -= 1;
      else {
        // Paced requests are what refills: they take the tokens as they come back.
        const slot = Math.max(now, this.#nextSlot);
        this.#nextSlot = slot + 1000 / perSecond;
        this.#remaining = Math.max(0, this.#remaining - 1);
        this.#updatedAt = Math.max(this.#updatedAt, slot);
        if (slot > now) await this.#sleep(slot - now);
      }
    }
    this.#inFlight += 1;
    const answer = attempt().finally(() => {
      this.#inFlight -= 1;
    });
    if (this.#probe === null) {
      this.#probe = answer.then(
        () => {},
        () => {},
      );
      void this.#probe.then(() => {
        this.#probe = undefined;
      });
    }
    const outcome = await answer;
    const { reading, refused } = readingOf(outcome);
    if (reading) {
      this.#perSecond = reading.limit;
      this.#burst = Math.max(reading.remaining, reading.remaining + reading.reset * reading.limit);
      // Requests still in flight were sent after this answer's count, or will be counted: take
      // them off, so that many callers at once do not all spend the same requests.
      this.#remaining = refused ? 0 : Math.max(0, reading.remaining - this.#inFlight);
      this.#updatedAt = Math.max(this.#now(), this.#updatedAt);
    } else if (refused && this.#perSecond !== undefined) this.#remaining = 0;
    return outcome;
  }
}
