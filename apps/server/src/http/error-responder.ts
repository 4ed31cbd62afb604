import type { Logger } from 'pino';
import type { AppMiddleware } from './app-state.ts';
import { checkProtocol } from './protocol-checks.ts';
import { toApiError } from './to-api-error.ts';

/**
 * Koa middleware, the one place any thrown error becomes an answer: requests that break
 * HTTP/1.1 rules Node leaves to the app are refused first (`checkProtocol`), and whatever a
 * later middleware throws is answered in the Error shape as `application/json`, through
 * `toApiError`. Unexpected failures are logged with their stack; the caller only sees
 * `internal`. A request refused before its body was read gets `Connection: close`, so an
 * unauthenticated caller cannot make the server keep reading.
 *
 * @example
 * app.use(errorResponder(logger));
 */
export function errorResponder(logger: Logger): AppMiddleware {
  return async function respondWithError(ctx, next) {
    try {
      checkProtocol(ctx.req);
      await next();
    } catch (thrown) {
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
  };
}
