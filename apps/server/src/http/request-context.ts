import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ServiceMetrics } from '../observability/metrics.ts';
import type { AppMiddleware } from './app-state.ts';
import { checkProtocol } from './protocol-checks.ts';
import { toApiError } from './to-api-error.ts';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Outermost: request id and common headers, `checkProtocol`, any thrown error answered in the
 * Error shape (unexpected ones logged, answered `internal`; untrusted framing closes the
 * connection, as does every answer once the listener is closed), then the metric (by the
 * matched route's path, never the raw URL) and one log line (never token or body).
 */
export function requestContext(
  logger: Logger,
  metrics?: ServiceMetrics,
  lifecycle?: { readonly closing: boolean },
): AppMiddleware {
  return async function withRequestContext(ctx, next) {
    const started = performance.now();
    const given = ctx.get('X-Request-Id');
    const requestId = SAFE_REQUEST_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set({
      'X-Request-Id': requestId,
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-store',
    });
    try {
      checkProtocol(ctx.req);
      await next();
    } catch (thrown) {
      // A body that came in the same read as the headers is complete once Node's parser is done
      // with that read: then the refusal keeps the connection (below).
      if (!ctx.req.complete) await new Promise((resolve) => setImmediate(resolve));
      const error = toApiError(thrown);
      if (error.kind === 'internal') logger.error({ err: thrown, requestId }, 'request failed');
      ctx.status = error.status;
      ctx.set(error.headers);
      ctx.type = 'application/json';
      ctx.body = error.toJson();
      if (error.kind === 'malformedRequest') ctx.set('Connection', 'close');
    } finally {
      // A body not read in full (a route that takes none, a refusal before reading it): the
      // answer closes the connection, and Node then reads no more of it (it stalls under TCP
      // backpressure until the socket is destroyed after the answer).
      if (!ctx.req.complete || lifecycle?.closing) ctx.set('Connection', 'close');
      const durationMs = performance.now() - started;
      const { method, status } = ctx;
      const route = ctx.routerPath ?? null;
      metrics?.requestDuration.observe(
        { method, route: route ?? 'unmatched', status: String(status) },
        durationMs / 1000,
      );
      const consumer = ctx.state.consumer ?? null;
      logger.info({ requestId, method, route, status, durationMs, consumer }, 'request');
    }
  };
}
