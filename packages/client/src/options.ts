import { describeValue } from '@plant-store/schema/shapes';
import { type $Fetch, ofetch } from 'ofetch';
import type { Pacer } from './pacer.ts';
import { type RetryPolicy, wait } from './retry.ts';

/** Options of {@link createPlantStoreClient}. */
export interface PlantStoreClientOptions {
  /** Where the API is served, e.g. `https://plants.example.com` or `http://127.0.0.1:3000/api`. */
  readonly baseUrl: string;
  /** The bearer token sent as `Authorization: Bearer <token>` to routes that require it. */
  readonly token: string;
  /** Time allowed for each attempt, in ms. Default 10 000. */
  readonly timeoutMs?: number;
  /**
   * Retries after a network failure, a timeout, a 429 or a 502/503/504 (never after another
   * 4xx or a 500). Default 2 (3 attempts).
   */
  readonly retries?: number;
  /** Wait before the first retry, in ms, doubled for each next one. Default 250. */
  readonly retryDelayMs?: number;
  /**
   * Longest wait between attempts, in ms: caps the backoff and the `Retry-After` of a 429 or
   * 503 that is waited for. A `Retry-After` asking for longer ends the retries at once (the
   * error's `retryAfter` tells the caller when to come back). Default 10 000.
   */
  readonly maxRetryDelayMs?: number;
  /** The fetch implementation to send with. Default: the global `fetch`. */
  readonly fetch?: typeof globalThis.fetch;
  /**
   * Paces requests on the server's `X-RateLimit-*` headers (`pacer: new Pacer()`): a client that
   * sends many requests at once, or one after another, uses the burst the server allows and then
   * sends at its sustained rate instead of being refused. Shared by every call of the clients
   * given the same `Pacer`. Default: none (not paced; a 429 is still retried after its
   * `Retry-After`), so an app that does not pace does not ship the pacer.
   */
  readonly pacer?: Pacer | undefined;
}

/** The options with defaults applied and checked, plus the ofetch instance to send with. */
export interface ClientConfig {
  readonly baseUrl: string;
  readonly token: string;
  readonly timeoutMs: number;
  readonly retry: RetryPolicy;
  readonly fetcher: $Fetch;
  /** Waits between attempts and for a paced turn (the tests pass one that records the wait). */
  readonly sleep: (ms: number) => Promise<void>;
  /** The pacer every attempt waits its turn with; `undefined`: not paced. */
  readonly pacer: Pacer | undefined;
}

/** The defaults of the optional {@link PlantStoreClientOptions}. */
export const CLIENT_DEFAULTS = {
  timeoutMs: 10_000,
  retries: 2,
  retryDelayMs: 250,
  maxRetryDelayMs: 10_000,
} as const;

/**
 * Applies the defaults and checks the options, throwing a `TypeError` or `RangeError` that
 * names the bad option.
 *
 * @example
 * resolveClientConfig({ baseUrl: 'http://127.0.0.1:3000', token: 't' }).retry;
 * // { retries: 2, retryDelayMs: 250, maxRetryDelayMs: 10000 }
 */
export function resolveClientConfig(options: PlantStoreClientOptions): ClientConfig {
  const { baseUrl, token } = options;
  // Checked for type first: `process.env.TOKEN!` is `undefined` at run time when the variable
  // is unset, and a template or `URL.parse` would turn it into the string "undefined".
  nonEmptyString('baseUrl', baseUrl);
  nonEmptyString('token', token);
  if (!/^https?:$/.test(URL.parse(baseUrl)?.protocol ?? '')) {
    throw new TypeError(`baseUrl must be an absolute http(s) URL, got ${JSON.stringify(baseUrl)}`);
  }
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new TypeError('token must be a non-empty string of visible ASCII characters');
  }
  const number = (name: keyof typeof CLIENT_DEFAULTS, rule: NumberRule) =>
    checkedNumber(name, options[name] ?? CLIENT_DEFAULTS[name], rule);
  return {
    baseUrl,
    token,
    timeoutMs: number('timeoutMs', '> 0'),
    retry: {
      retries: number('retries', 'a whole number >= 0'),
      retryDelayMs: number('retryDelayMs', '>= 0'),
      maxRetryDelayMs: number('maxRetryDelayMs', '>= 0'),
    },
    fetcher: options.fetch ? ofetch.create({}, { fetch: options.fetch }) : ofetch,
    sleep: wait,
    pacer: options.pacer,
  };
}

function nonEmptyString(name: string, value: unknown): asserts value is string {
  if (typeof value !== 'string' || value.trim() === '') {
    // `undefined` by name: what an unset `process.env.X!` gives.
    const got =
      typeof value === 'string'
        ? JSON.stringify(value)
        : value === undefined
          ? 'undefined'
          : describeValue(value);
    throw new TypeError(`${name} must be a non-empty string, got ${got}`);
  }
}

/** What a numeric option must be, as its `RangeError` says it. */
type NumberRule = '> 0' | '>= 0' | 'a whole number >= 0';

function checkedNumber(name: string, value: number, rule: NumberRule): number {
  const ok =
    rule === '> 0' ? value > 0 : value >= 0 && (rule === '>= 0' || Number.isSafeInteger(value));
  if (!(Number.isFinite(value) && ok))
    throw new RangeError(`${name} must be ${rule}, got ${value}`);
  return value;
}
