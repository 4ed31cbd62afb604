import { describe, expect, it } from 'vitest';
import { ApiError } from '../api-error.ts';
import { StoreUnavailableError } from '../store/plant-store.ts';
import { STORE_RETRY_AFTER_SECONDS, toApiError } from './to-api-error.ts';

describe('toApiError', () => {
  it('passes an ApiError through as it is', () => {
    const error = new ApiError('notFound', 'No operation at GET /x');
    expect(toApiError(error)).toBe(error);
  });

  it('answers an unreachable store 503 with Retry-After', () => {
    const answer = toApiError(new StoreUnavailableError('down'));
    expect([answer.kind, answer.status, answer.headers]).toEqual([
      'storeUnavailable',
      503,
      { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) },
    ]);
  });

  it('answers anything else internal, saying nothing of it', () => {
    const answer = toApiError(new TypeError('secret detail'));
    expect([answer.kind, answer.status]).toEqual(['internal', 500]);
    expect(answer.message).not.toContain('secret');
  });
});
