import type { ERROR_CATALOG } from '@plant-store/schema';
import { ErrorBody, shortened, VALIDATION_FAILED_CODE } from '@plant-store/schema/shapes';
import type * as z from 'zod/mini';
import type { ResponseOutcome } from './retry.ts';

/**
 * A code of the API's error catalog (docs/api.md, "Error codes"): the `error` of an Error body,
 * `40001 | 40002 | … | 50301`. A type only: the catalog's codes as the schema of this version
 * lists them (a code a newer server adds arrives as sent).
 */
export type ErrorCode = (typeof ERROR_CATALOG)[keyof typeof ERROR_CATALOG]['code'];

/** What a {@link PlantStoreError} is built from. */
export interface PlantStoreErrorDetails {
  /** The operation that failed, e.g. `createPlant`. */
  readonly operationId: string;
  /**
   * The HTTP status of the last response; `0` when no response arrived; `400` when the client
   * refused the input before sending it (what the server answers the same input with).
   */
  readonly status: number;
  /**
   * The catalog code of a conforming Error body (`40001` for an input the client refused);
   * `undefined` when there was none.
   */
  readonly code?: ErrorCode | undefined;
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
 * Every error a call of the client rejects with: `catch` it once and nothing escapes. Three
 * kinds, told apart by `instanceof` (the subclasses) or by `status`:
 *
 * - an answer that is not the route's success (`status` its HTTP status): a conforming Error
 *   body gives `code` (its `error`) and `message` (its `message`, verbatim); a non-conforming
 *   body (an HTML page from a proxy, say) gives `code: undefined` and a message naming the
 *   status and what the body was; a success status whose body is not the route's response
 *   schema gives `code: undefined` and a message listing the problems;
 * - {@link PlantStoreNetworkError}: no response at all (`status` 0, `code` undefined);
 * - {@link PlantStoreValidationError}: the input was refused before anything was sent
 *   (`attempts` 0; `status` 400 and `code` 40001, what the server answers the same input with).
 *
 * `code` is typed as the catalog's codes ({@link ErrorCode}), so a comparison with a number
 * that is no code does not compile.
 *
 * A 429 (code 42901) or 503 whose `Retry-After` was longer than the client's
 * `maxRetryDelayMs`, or that was still refused after the retries, keeps that `retryAfter`, so
 * the caller can back off itself.
 *
 * @example
 * try {
 *   await client.createPlant({ id: 10, name: 'Monstera' });
 * } catch (error) {
 *   if (error instanceof PlantStoreError && error.code === 40901) {
 *     // conflict: id 10 is taken by another plant
 *   } else if (error instanceof PlantStoreError && error.code === 42901) {
 *     // rate limited: come back in error.retryAfter seconds
 *   }
 * }
 */
export class PlantStoreError extends Error {
  override readonly name: string = 'PlantStoreError';
  // `declare`: set by the constructor, so no class field is emitted for them (bundle size).
  declare readonly operationId: string;
  declare readonly status: number;
  /** See {@link PlantStoreErrorDetails.code}. */
  declare readonly code: ErrorCode | undefined;
  /** See {@link PlantStoreErrorDetails.retryAfter}. */
  declare readonly retryAfter: number | undefined;
  declare readonly attempts: number;

  constructor(message: string, details: PlantStoreErrorDetails) {
    // Error takes `cause` from `details` when it has one (and nothing else from it).
    super(message, details);
    this.operationId = details.operationId;
    this.status = details.status;
    this.code = details.code;
    this.retryAfter = details.retryAfter;
    this.attempts = details.attempts;
  }
}

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
 * try {
 *   await client.createPlant({ id: 11, name: 'Fern' });
 * } catch (error) {
 *   if (error instanceof PlantStoreNetworkError && error.timedOut) {
 *     // the API did not answer within timeoutMs, on any attempt
 *   }
 * }
 */
export class PlantStoreNetworkError extends PlantStoreError {
  override readonly name: string = 'PlantStoreNetworkError';
  declare readonly url: string;
  declare readonly timedOut: boolean;

  constructor(details: PlantStoreNetworkErrorDetails) {
    const what = details.timedOut ? 'timed out' : `failed (${describeCause(details.cause)})`;
    const tries = `${details.attempts} attempt${details.attempts === 1 ? '' : 's'}`;
    super(`${details.operationId}: request to ${details.url} ${what}; gave up after ${tries}`, {
      ...details,
      status: 0,
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

/**
 * The input was refused by the route's body schema before any request was sent: a
 * {@link PlantStoreError} with `attempts` 0, and `status` 400 and `code` 40001, what the server
 * answers the same body with. `message` is `formatIssues(issues)`, the server's text too.
 *
 * @example
 * try {
 *   await client.createPlant({ id: 1.5, name: '' });
 * } catch (error) {
 *   if (error instanceof PlantStoreValidationError) console.log(error.issues.length); // 2
 * }
 */
export class PlantStoreValidationError extends PlantStoreError {
  override readonly name: string = 'PlantStoreValidationError';
  /** Every problem zod found, with its path. */
  declare readonly issues: readonly z.core.$ZodIssue[];

  constructor(
    message: string,
    details: { readonly operationId: string; readonly issues: readonly z.core.$ZodIssue[] },
  ) {
    super(message, { ...details, status: 400, code: VALIDATION_FAILED_CODE, attempts: 0 });
    this.issues = details.issues;
  }
}

/**
 * The {@link PlantStoreError} for a response that is not the route's success: with the Error
 * body's `error` as `code` and its `message` verbatim when the body is an Error, or with
 * `code: undefined` and a message describing the status and body when it is not (an HTML page
 * from a proxy, an empty body, …).
 *
 * @example
 * errorFromResponse('createPlant', response, 1);
 * // PlantStoreError { status: 409, code: 40901, message: 'A plant with id 10 already exists …' }
 */
export function errorFromResponse(
  operationId: string,
  response: ResponseOutcome,
  attempts: number,
): PlantStoreError {
  const details = {
    operationId,
    status: response.status,
    retryAfter: response.retryAfter,
    attempts,
  };
  const body = parseBody(ErrorBody, response.text);
  if (!(body instanceof Error) && body.success) {
    // The Error body's `error` is a catalog code (the contract): typed as one, passed as sent.
    return new PlantStoreError(body.data.message, {
      ...details,
      code: body.data.error as ErrorCode,
    });
  }
  const status = `${response.status} ${response.statusText}`.trim();
  return new PlantStoreError(
    `${operationId}: the API answered ${status} without an Error body (${describeBody(response)})`,
    details,
  );
}

/**
 * `text` read as JSON and checked with `schema`: zod's result, or JSON.parse's error when it is
 * not JSON. (The client reads the Error body and the success body with it.)
 *
 * @example
 * parseBody(ErrorBody, '{"error":40901,"message":"…"}'); // { success: true, data: { error: 40901, … } }
 * parseBody(ErrorBody, '<html>'); // SyntaxError
 */
export function parseBody<S extends z.ZodMiniType>(
  schema: S,
  text: string,
): z.core.util.SafeParseResult<z.output<S>> | SyntaxError {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return error as SyntaxError;
  }
  return schema.safeParse(json);
}

/**
 * A short, single-line description of a response body for an error message: its content type
 * and the start of its text (`shortened` to 121 characters: 120 and `…` when longer).
 *
 * @example
 * describeBody({ contentType: 'text/html', text: '<html>\n  <body>Bad gateway</body>\n</html>' });
 * // 'text/html: "<html> <body>Bad gateway</body> </html>"'
 */
export function describeBody(response: Pick<ResponseOutcome, 'contentType' | 'text'>): string {
  const type = response.contentType ?? 'no content-type';
  const text = response.text.replace(/\s+/g, ' ').trim();
  return text ? `${type}: ${JSON.stringify(shortened(text, 121))}` : `${type}, empty`;
}
