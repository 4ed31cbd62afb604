import type { Logger } from 'pino';
import type { AppContext } from './app-state.ts';
import { toApiError } from './to-api-error.ts';

/**
 * The one place any thrown error becomes an answer: what a middleware threw is answered in the
 * Error shape as `application/json`, through `toApiError`. Unexpected failures are logged with
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
  ctx.body = JSON.stringify(error.toBody());
}
