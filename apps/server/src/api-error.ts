import { ERROR_CATALOG, type ErrorBody, type ErrorName } from '@plant-store/schema';

/**
 * An answer on purpose: a catalog entry (status, `error` code), a message safe to show, headers.
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
    super(message);
    this.status = ERROR_CATALOG[kind].status;
    this.code = ERROR_CATALOG[kind].code;
  }

  toBody(): ErrorBody {
    return { error: this.code, message: this.message };
  }
}
