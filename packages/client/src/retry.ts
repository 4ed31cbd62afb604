import { type $Fetch, FetchError } from 'ofetch';

/** One HTTP attempt that got a response (any status). */
export interface ResponseOutcome {
  readonly kind: 'response';
  readonly status: number;
  readonly statusText: string;
  readonly contentType: string | undefined;
  /** Seconds from the `Retry-After` header, when present and readable. */
  readonly retryAfter: number | undefined;
  /** The answer's headers (a `Pacer` reads its `X-RateLimit-*` ones). */
  readonly headers: Headers;
  /** The body as text; `''` when there was none. */
  readonly text: string;
}

/** One HTTP attempt that got no response at all. */
export interface FailureOutcome {
  readonly kind: 'failure';
  /** The underlying error (never an ofetch `FetchError`). */
  readonly error: unknown;
  readonly timedOut: boolean;
}

/** What one HTTP attempt ended with. */
export type AttemptOutcome = ResponseOutcome | FailureOutcome;

/** One request, ready to send (and to send again, unchanged, on a retry). */
export interface HttpRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | undefined;
  readonly timeoutMs: number;
}

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
 * an identical request (`POST /plants` with the same id and the same value in every field
 * answers 200 again with the same plant, never a second plant nor a 409). A 429 is answered
 * before the request is handled, so nothing was stored by it.
 *
 * @example
 * const policy = { retries: 2, retryDelayMs: 100, maxRetryDelayMs: 5_000 };
 * nextRetryDelay(policy, { kind: 'failure', error, timedOut: false }, 2); // 200
 * nextRetryDelay(policy, { ...response, status: 429, retryAfter: 1 }, 1); // 1000
 * nextRetryDelay(policy, { ...response, status: 429, retryAfter: 60 }, 1); // undefined
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

/**
 * A header value that is a whole number of digits (blanks around it allowed), as a `number`;
 * `undefined` for no header or anything else (`-1`, `1.5`, `lots`).
 *
 * @example
 * headerNumber(' 120 '); // 120
 */
export function headerNumber(value: string | null | undefined): number | undefined {
  return value != null && /^\s*\d+\s*$/.test(value) ? Number(value) : undefined;
}

// Every HTTP-date form (IMF-fixdate, RFC 850, asctime) starts with a day name.
const HTTP_DATE = /^\s*[A-Za-z]{3}/;

/**
 * Reads a `Retry-After` header as whole seconds from `now`: either delta-seconds (`120`) or an
 * HTTP date (rounded up; a past date gives 0). Anything else, or no header, gives `undefined`.
 *
 * @example
 * parseRetryAfter('3'); // 3
 * parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('Wed, 21 Oct 2015 07:27:58 GMT')); // 2
 * parseRetryAfter('soon'); // undefined
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now = Date.now(),
): number | undefined {
  if (value === null || value === undefined) return undefined;
  const seconds = headerNumber(value);
  if (seconds !== undefined) return Number.isSafeInteger(seconds) ? seconds : undefined;
  if (!HTTP_DATE.test(value)) return undefined;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/**
 * Sends `request` once with ofetch, never throwing: every status is returned as a response
 * outcome with its body as text (parsed later, without losing integer precision), and any
 * failure to get a response as a failure outcome holding the underlying error.
 *
 * @example
 * const outcome = await sendOnce(ofetch, { url, method: 'POST', headers, body, timeoutMs: 10_000 });
 */
export async function sendOnce(fetcher: $Fetch, request: HttpRequest): Promise<AttemptOutcome> {
  try {
    const response = await fetcher.raw<string, 'text'>(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body, // undefined (no body) is no body to ofetch and to fetch
      timeout: request.timeoutMs,
      retry: false,
      ignoreResponseError: true,
      responseType: 'text',
    });
    return {
      kind: 'response',
      status: response.status,
      statusText: response.statusText,
      contentType: response.headers.get('content-type') ?? undefined,
      retryAfter: parseRetryAfter(response.headers.get('retry-after')),
      headers: response.headers,
      text: response._data ?? '',
    };
  } catch (thrown) {
    const error =
      thrown instanceof FetchError && thrown.cause !== undefined ? thrown.cause : thrown;
    return {
      kind: 'failure',
      error,
      timedOut: error instanceof Error && error.name === 'TimeoutError',
    };
  }
}

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

/** Waits `ms` milliseconds: how the client waits between attempts. */
export function wait(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
