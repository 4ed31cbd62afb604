/** What one HTTP attempt ended with: a response (any status), or no response at all. */
export type AttemptOutcome =
  | {
      readonly kind: 'response';
      readonly status: number;
      readonly statusText: string;
      readonly contentType: string | undefined;
      /** Seconds from the `Retry-After` header, when present and readable. */
      readonly retryAfter: number | undefined;
      /** The body as text; `''` when there was none. */
      readonly text: string;
    }
  | {
      readonly kind: 'failure';
      /** The underlying error (never an ofetch `FetchError`). */
      readonly error: unknown;
      readonly timedOut: boolean;
    };
