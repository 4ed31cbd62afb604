/** What a {@link PlantStoreError} is built from. */
export interface PlantStoreErrorDetails {
  /** The operation that failed, e.g. `createPlant`. */
  readonly operationId: string;
  /** The HTTP status of the last response; `0` when no response arrived. */
  readonly status: number;
  /** The catalog code of a conforming Error body; `undefined` when there was none. */
  readonly code?: number | undefined;
  /**
   * Seconds to wait before trying again, from the `Retry-After` header of the last response
   * (delta-seconds as sent, an HTTP date as whole seconds from when the response arrived);
   * `undefined` when it had none or it was unreadable.
   */
  readonly retryAfter?: number | undefined;
  /** How many requests were sent, retries included. */
  readonly attempts: number;
  readonly cause?: unknown;
}

/**
 * The call reached the API (or tried to) and did not get the success response: a non-2xx
 * status, a body that does not match the contract, or (as {@link PlantStoreNetworkError})
 * no response at all.
 *
 * - A conforming Error body gives `code` (its `error`) and `message` (its `message`, verbatim).
 * - A non-conforming body (an HTML page from a proxy, say) gives `code: undefined` and a message
 *   naming the status and what the body was.
 * - A success status whose body is not the route's response schema gives `code: undefined` and
 *   a message listing the problems; `status` is then the success status (e.g. 200).
 *
 * A 429 (code 42901) or 503 whose `Retry-After` was longer than the client's
 * `maxRetryDelayMs`, or that was still refused after the retries, keeps that `retryAfter`, so
 * the caller can back off itself.
 *
 * @example
 * try {
 *   await client.createPlant({ id: 10, name: 'Monstera' });
 * } catch (error) {
 *   if (error instanceof PlantStoreError && error.code === ERROR_CATALOG.conflict.code) {
 *     // id 10 is taken by another plant
 *   } else if (error instanceof PlantStoreError && error.code === ERROR_CATALOG.rateLimited.code) {
 *     // over the rate limit: come back in error.retryAfter seconds
 *   }
 * }
 */
export class PlantStoreError extends Error {
  override readonly name: string = 'PlantStoreError';
  readonly operationId: string;
  readonly status: number;
  readonly code: number | undefined;
  /** See {@link PlantStoreErrorDetails.retryAfter}. */
  readonly retryAfter: number | undefined;
  readonly attempts: number;

  constructor(message: string, details: PlantStoreErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.operationId = details.operationId;
    this.status = details.status;
    this.code = details.code;
    this.retryAfter = details.retryAfter;
    this.attempts = details.attempts;
  }
}
