import type { Logger } from 'pino';
import type { AppContext, AppMiddleware } from './app-state.ts';
import { checkProtocol } from './protocol-checks.ts';
import { toApiError } from './to-api-error.ts';

/**
 * Koa middleware that owns every error response: whatever a later middleware throws is
 * answered by `answerError`. The app runs it inside its one bookkeeping middleware
 * (`requestContext`); this layer is for an app that needs it further in (after CORS). Requests
 * that break HTTP/1.1 rules Node leaves to the app are refused first (`checkProtocol`; in
 * `requestContext` when that answers the errors).
 */
export function errorResponder(logger: Logger): AppMiddleware {
  return async function respondWithError(ctx, next) {
    try {
      checkProtocol(ctx.req);
      await next();
    } catch (thrown) {
      answerError(ctx, thrown, logger);
    }
  };
}

/**
 * Answers `thrown` with the Error shape as `application/json`. Unexpected failures are logged
 * with their stack; the caller only sees `internal`. A request refused before its body was
 * read gets `Connection: close`, so an unauthenticated caller cannot make the server keep
 * reading.
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
