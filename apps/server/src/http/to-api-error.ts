import { ERROR_MESSAGES } from '@plant-store/schema';
import { StoreUnavailableError } from '../store/plant-store.ts';
import { ApiError } from './api-error.ts';

/** Seconds a client should wait before retrying when the store is unavailable. */
export const STORE_RETRY_AFTER_SECONDS = 1;

interface HttpLikeError {
  status?: unknown;
  type?: unknown;
  limit?: unknown;
  code?: unknown;
}

/**
 * True for the error zlib raises while decoding a body that is not what its Content-Encoding
 * says (`Z_DATA_ERROR`, `Z_BUF_ERROR` for a cut-short stream; brotli's `ERR__ERROR_FORMAT_…`).
 */
function isDecodingError(code: unknown): boolean {
  return typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR__ERROR_'));
}

/**
 * Turns anything thrown while handling a request into the ApiError to answer with. The one
 * place that decides what a caller is told: an unknown failure becomes `internal`, whose
 * message reveals nothing of the cause.
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof StoreUnavailableError) {
    return new ApiError('storeUnavailable', ERROR_MESSAGES.storeUnavailable.unreachable, {
      'Retry-After': String(STORE_RETRY_AFTER_SECONDS),
    });
  }
  const { status, type, limit, code } = (error ?? {}) as HttpLikeError;
  // Errors of the body reader (raw-body / inflation, behind koa-bodyparser).
  if (type === 'entity.too.large' || status === 413) {
    return new ApiError(
      'payloadTooLarge',
      ERROR_MESSAGES.payloadTooLarge(typeof limit === 'number' ? limit : undefined),
    );
  }
  if (type === 'encoding.unsupported' || type === 'charset.unsupported' || status === 415) {
    return new ApiError('unsupportedMediaType', ERROR_MESSAGES.unsupportedMediaType.coding);
  }
  // A body that says gzip or deflate but is not (or is cut short) is the client's mistake.
  if (isDecodingError(code)) {
    return new ApiError('malformedJson', ERROR_MESSAGES.malformedJson.undecodable);
  }
  if (type === 'request.aborted' || type === 'request.size.invalid') {
    return new ApiError('malformedJson', ERROR_MESSAGES.malformedJson.cutShort);
  }
  return new ApiError('internal', ERROR_MESSAGES.internal);
}
