import { PlantStoreError } from './plant-store-error.ts';

/** What a {@link PlantStoreNetworkError} is built from. */
export interface PlantStoreNetworkErrorDetails {
  readonly operationId: string;
  /** The URL the request was sent to. */
  readonly url: string;
  /** True when the last attempt was cut off by the client's timeout. */
  readonly timedOut: boolean;
  readonly attempts: number;
  /** The underlying failure (the fetch error, or the timeout). */
  readonly cause: unknown;
}

/**
 * No response arrived: the connection was refused or dropped, or every attempt timed out.
 * A {@link PlantStoreError} with `status` 0 and `code` undefined; `cause` holds the last failure.
 *
 * @example
 * catch (error) {
 *   if (error instanceof PlantStoreNetworkError && error.timedOut) {
 *     // the API did not answer within timeoutMs, on any attempt
 *   }
 * }
 */
export class PlantStoreNetworkError extends PlantStoreError {
  override readonly name: string = 'PlantStoreNetworkError';
  readonly url: string;
  readonly timedOut: boolean;

  constructor(details: PlantStoreNetworkErrorDetails) {
    const what = details.timedOut ? 'timed out' : `failed (${describeCause(details.cause)})`;
    const tries = details.attempts === 1 ? '1 attempt' : `${details.attempts} attempts`;
    super(`${details.operationId}: request to ${details.url} ${what}; gave up after ${tries}`, {
      operationId: details.operationId,
      status: 0,
      attempts: details.attempts,
      cause: details.cause,
    });
    this.url = details.url;
    this.timedOut = details.timedOut;
  }
}

/** The most specific message in an error's cause chain, e.g. `connect ECONNREFUSED 127.0.0.1:9`. */
function describeCause(cause: unknown): string {
  let message = 'unknown error';
  let current = cause;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    if (current.message) message = current.message;
    current = current.cause;
  }
  return message;
}
