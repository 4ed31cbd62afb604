import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ServiceMetrics } from '../observability/metrics.ts';
import { requestLogWriter } from '../observability/request-log.ts';
import type { AppContext, AppMiddleware } from './app-state.ts';
import { answerError } from './error-responder.ts';
import { checkProtocol } from './protocol-checks.ts';
import { requestObserver } from './request-metrics.ts';

// A caller's X-Request-Id is kept only when it is short and made of safe characters.
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface RequestContextOptions {
  /** Observe every request into these metrics (`http_request_duration_seconds`). */
  readonly metrics?: ServiceMetrics;
  /**
   * Answer what later middleware throws in the Error shape (the error responder's job, see
   * `answerError`), inside the bookkeeping; false when a separate `errorResponder` sits
   * further in (after CORS, whose headers an error answer keeps). Default true.
   */
  readonly answerErrors?: boolean;
}

/**
 * Koa middleware, outermost, all the per-request bookkeeping in one layer (each layer costs
 * a promise and a dispatch per request): gives the request an id (the caller's
 * `X-Request-Id` when safe, else a new UUID), echoes it on the response, sets the headers
 * every response of a JSON API carries, answers errors in the Error shape (unless
 * `answerErrors` is false), and when the response is done observes it in the metrics and
 * writes one log line: method, route, status, duration, request id and the credential's
 * name — never the token, the headers or the body.
 *
 * @example
 * app.use(requestContext(logger, { metrics }));
 */
export function requestContext(logger: Logger, options: RequestContextOptions = {}): AppMiddleware {
  const writeRequestLine = requestLogWriter(logger);
  const observe = options.metrics ? requestObserver(options.metrics) : undefined;
  const answerErrors = options.answerErrors ?? true;
  // Not async, and the finishing step defined once: what a request allocates here is its
  // promise's two continuations.
  const finish = (ctx: AppContext, requestId: string, started: number): void => {
    const durationMs = performance.now() - started;
    const route = ctx.state.route;
    const status = ctx.status;
    observe?.(ctx.method, route, status, durationMs);
    writeRequestLine({
      requestId,
      method: ctx.method,
      route: route ?? null,
      status,
      durationMs,
      consumer: ctx.state.consumer ?? null,
    });
  };
  return function withRequestContext(ctx, next) {
    const started = performance.now();
    const given = ctx.req.headers['x-request-id'];
    const requestId =
      typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = requestId;
    // Straight onto the response (nothing is sent yet): ctx.set would check and convert each.
    const res = ctx.res;
    res.setHeader('X-Request-Id', requestId);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Cache-Control', 'no-store');
    let served: Promise<void>;
    try {
      // Requests that break HTTP/1.1 rules Node leaves to the app are refused first (when this
      // layer answers the errors; otherwise `errorResponder` checks them).
      if (answerErrors) checkProtocol(ctx.req);
      served = next();
    } catch (thrown) {
      served = Promise.reject(thrown);
    }
    return served.then(
      () => finish(ctx, requestId, started),
      (thrown: unknown) => {
        try {
          if (!answerErrors) throw thrown;
          answerError(ctx, thrown, logger);
        } finally {
          finish(ctx, requestId, started);
        }
      },
    );
  };
}
