import { ERROR_CATALOG, type ErrorBody, type ErrorName } from '@plant-store/schema';

/**
 * An error the API answers with on purpose: a catalog entry (which fixes the HTTP status and
 * the `error` code), a message safe to show the caller, and optional response headers.
 *
 * @example
 * throw new ApiError('conflict', 'A plant with id 10 already exists with a different name or tag');
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly code: number;

  constructor(
    readonly kind: ErrorName,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    // An answer, not a fault: no stack is captured (V8 walks the stack of Koa's middleware
    // for it, ~15 µs an error answer, and every bad request or refused credential makes one).
    const { stackTraceLimit } = Error;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.status = ERROR_CATALOG[kind].status;
    this.code = ERROR_CATALOG[kind].code;
  }

  /** The response body, in the Error shape. */
  toBody(): ErrorBody {
    return { error: this.code, message: this.message };
  }
}
