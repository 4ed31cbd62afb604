import { ERROR_CATALOG, type ErrorBody, type ErrorName } from '@plant-store/schema';

export const MAX_ERROR_BODY_BYTES = 1024;

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

  /** The Error body as JSON of at most {@link MAX_ERROR_BODY_BYTES} bytes, whatever the message. */
  toJson(): string {
    const body: ErrorBody = { error: this.code, message: this.message };
    const json = JSON.stringify(body);
    if (Buffer.byteLength(json) <= MAX_ERROR_BODY_BYTES) return json;
    // The message's first characters that fit, as JSON writes them, with room for `…`.
    let room = MAX_ERROR_BODY_BYTES - Buffer.byteLength(JSON.stringify({ ...body, message: '…' }));
    let kept = '';
    for (const char of body.message) {
      room -= Buffer.byteLength(JSON.stringify(char)) - 2;
      if (room < 0) break;
      kept += char;
    }
    return JSON.stringify({ ...body, message: `${kept}…` });
  }
}
