import { ERROR_MESSAGES } from '@plant-store/schema';
import { ApiError } from '../api-error.ts';
import { StoreUnavailableError } from '../store/plant-store.ts';

export const STORE_RETRY_AFTER_SECONDS = 1;

/** What a caller is told of anything thrown: an unknown failure is `internal`, saying nothing. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof StoreUnavailableError) {
    return new ApiError('storeUnavailable', ERROR_MESSAGES.storeUnavailable.unreachable, {
      'Retry-After': String(STORE_RETRY_AFTER_SECONDS),
    });
  }
  const { status, type, limit, code } = (error ?? {}) as Record<string, unknown>;
  // Errors of the body reader, koa-bodyparser: raw-body's `type`s, inflation's 415, zlib's codes.
  if (type === 'entity.too.large' || status === 413) {
    return new ApiError(
      'payloadTooLarge',
      ERROR_MESSAGES.payloadTooLarge(typeof limit === 'number' ? limit : undefined),
    );
  }
  if (type === 'encoding.unsupported' || status === 415) {
    return new ApiError('unsupportedMediaType', ERROR_MESSAGES.unsupportedMediaType.coding);
  }
  // zlib's `Z_DATA_ERROR`, `Z_BUF_ERROR`: a body not what its Content-Encoding says.
  if (typeof code === 'string' && code.startsWith('Z_')) {
    return new ApiError('malformedJson', ERROR_MESSAGES.malformedJson.undecodable);
  }
  if (type === 'request.aborted' || type === 'request.size.invalid') {
    return new ApiError('malformedJson', ERROR_MESSAGES.malformedJson.cutShort);
  }
  return new ApiError('internal', ERROR_MESSAGES.internal);
}
