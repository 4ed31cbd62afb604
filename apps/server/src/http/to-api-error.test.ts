import { Readable } from 'node:stream';
import { gzipSync, unzipSync } from 'node:zlib';
import getRawBody from 'raw-body';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../api-error.ts';
import { StoreUnavailableError } from '../store/plant-store.ts';
import { STORE_RETRY_AFTER_SECONDS, toApiError } from './to-api-error.ts';

/** What raw-body (the body reader) throws for `chunks` read with `options`. */
async function rawBodyError(chunks: string[], options: getRawBody.Options): Promise<unknown> {
  return getRawBody(Readable.from(chunks), options).catch((error: unknown) => error);
}

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

  it("reads raw-body's real errors: too large is 413, a body shorter than declared is 400", async () => {
    const tooLarge = await rawBodyError(['x'.repeat(20)], { limit: 10 });
    expect([toApiError(tooLarge).kind, toApiError(tooLarge).message]).toEqual([
      'payloadTooLarge',
      expect.stringContaining('10'),
    ]);
    const short = await rawBodyError(['abc'], { length: 10, limit: 100 });
    expect(toApiError(short).kind).toBe('malformedJson');
  });

  it("answers zlib's real error for bytes that are not what they claim with 400", () => {
    const notGzip = (() => {
      try {
        unzipSync(gzipSync('{}').subarray(0, 5));
      } catch (error) {
        return error;
      }
    })();
    expect(toApiError(notGzip).kind).toBe('malformedJson');
  });

  it('answers anything else internal, saying nothing of it', () => {
    const answer = toApiError(new TypeError('secret detail'));
    expect([answer.kind, answer.status]).toEqual(['internal', 500]);
    expect(answer.message).not.toContain('secret');
  });
});
