import { ERROR_MESSAGES } from '@plant-store/schema';
import { ApiError } from '../api-error.ts';
import { StoreUnavailableError } from '../store/plant-store.ts';

export const STORE_RETRY_AFTER_SECONDS = 1;

/** A 503 for a store that cannot commit now, with `Retry-After`. */
export function storeUnavailable(message: string): ApiError {
  const retry = { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) };
  return new ApiError('storeUnavailable', message, retry);
}

/** What a caller is told of anything thrown: an unknown failure is `internal`, saying nothing. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof StoreUnavailableError) {
    return storeUnavailable(ERROR_MESSAGES.storeUnavailable.unreachable);
  }
  return new ApiError('internal', ERROR_MESSAGES.internal);
}
