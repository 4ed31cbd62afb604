import { gzipSync } from 'node:zlib';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import inject from 'light-my-request';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../api-error.ts';
import { StoreUnavailableError } from '../store/plant-store.ts';
import { STORE_RETRY_AFTER_SECONDS, toApiError } from './to-api-error.ts';

const LIMIT = 10;

/** What koa-bodyparser, set as json-body.ts sets it, throws for a request of `payload`. */
async function readerError(payload: Buffer | string, headers: Record<string, string> = {}) {
  let thrown: unknown;
  const app = new Koa();
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      thrown = error;
      ctx.status = 500;
    }
  });
  app.use(
    bodyParser({
      enableTypes: ['text'],
      extendTypes: { text: ['application/json'] },
      textLimit: String(LIMIT),
      encoding: 'latin1',
    }),
  );
  await inject(app.callback(), {
    method: 'POST',
    url: '/',
    headers: { 'content-type': 'application/json', ...headers },
    payload,
  });
  return thrown;
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

  it("reads the body reader's real errors: too large is 413, as sent or once inflated", async () => {
    for (const tooLarge of [
      await readerError('x'.repeat(LIMIT + 1)),
      await readerError(gzipSync('x'.repeat(LIMIT + 1)), { 'content-encoding': 'gzip' }),
    ]) {
      expect([toApiError(tooLarge).kind, toApiError(tooLarge).message]).toEqual([
        'payloadTooLarge',
        expect.stringContaining(String(LIMIT)),
      ]);
    }
  });

  it('answers a body shorter than its Content-Length with 400', async () => {
    const short = await readerError('abc', { 'content-length': String(LIMIT) });
    expect(toApiError(short).kind).toBe('malformedJson');
  });

  it('answers bytes that are not what their Content-Encoding says with 400', async () => {
    for (const coding of ['gzip', 'deflate']) {
      const notEncoded = await readerError('{}', { 'content-encoding': coding });
      expect([toApiError(notEncoded).kind, toApiError(notEncoded).message]).toEqual([
        'malformedJson',
        'Request body could not be decoded as its Content-Encoding says',
      ]);
    }
  });

  it('answers a Content-Encoding the reader cannot decode with 415', async () => {
    const unknown = await readerError('{}', { 'content-encoding': 'compress' });
    expect([toApiError(unknown).kind, toApiError(unknown).status]).toEqual([
      'unsupportedMediaType',
      415,
    ]);
  });

  it('answers anything else internal, saying nothing of it', () => {
    const answer = toApiError(new TypeError('secret detail'));
    expect([answer.kind, answer.status]).toEqual(['internal', 500]);
    expect(answer.message).not.toContain('secret');
  });
});
