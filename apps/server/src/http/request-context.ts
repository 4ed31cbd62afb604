import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { AppMiddleware } from './app-state.ts';

// A caller's X-Request-Id is kept only when it is short and made of safe characters.
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Koa middleware, outermost: gives the request an id (the caller's `X-Request-Id` when safe,
 * else a new UUID), echoes it on the response, sets the headers every response of a JSON API
 * carries, and writes one log line when the response is done: method, route, status,
 * duration, request id and the credential's name — never the token, the headers or the body.
 */
export function requestContext(logger: Logger): AppMiddleware {
  return async function withRequestContext(ctx, next) {
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
    try {
      await next();
    } finally {
      if (logger.isLevelEnabled('info')) {
        logger.info(
          {
            requestId,
            method: ctx.method,
            route: ctx.state.route ?? null,
            status: ctx.status,
            durationMs: performance.now() - started,
            consumer: ctx.state.consumer ?? null,
          },
          'request',
        );
      }
    }
  };
}
