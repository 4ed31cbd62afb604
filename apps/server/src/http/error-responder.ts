import type { Logger } from 'pino';
import type { ApiError } from './api-error.ts';
import type { AppContext } from './app-state.ts';
import { toApiError } from './to-api-error.ts';

/** Most bytes of an Error body, whatever the request: its message is cut to fit. */
export const MAX_ERROR_BODY_BYTES = 1024;

/**
 * The Error body of `error` as JSON of at most {@link MAX_ERROR_BODY_BYTES} bytes. Messages are
 * short by construction (a caller's own text is quoted shortened); this is the bound that holds
 * whatever a message is made of.
 */
export function errorBodyJson(error: ApiError): string {
  const body = error.toBody();
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

/**
 * The one place any thrown error becomes an answer: what a middleware threw is answered in the
 * Error shape as `application/json` of at most 1 KB, through `toApiError`. Unexpected failures are logged with
 * their stack; the caller only sees `internal`. A request refused before its body was read gets
 * `Connection: close`, so an unauthenticated caller cannot make the server keep reading.
 * Called by `requestContext`, the outermost middleware, so every answer carries its headers.
 *
 * @example
 * app.use(async (ctx, next) => {
 *   try { await next(); } catch (thrown) { answerError(ctx, thrown, logger); }
 * });
 */
export function answerError(ctx: AppContext, thrown: unknown, logger: Logger): void {
  const error = toApiError(thrown);
  if (error.kind === 'internal') {
    logger.error({ err: thrown, requestId: ctx.state.requestId }, 'request failed');
  }
  ctx.status = error.status;
  ctx.set(error.headers);
  // Refused before its body was read (401, 429, 415, 413…): close the connection after
  // answering rather than let Node read and discard the rest of an unwanted body.
  if (!ctx.req.complete) ctx.set('Connection', 'close');
  ctx.type = 'application/json';
  ctx.body = errorBodyJson(error);
}
