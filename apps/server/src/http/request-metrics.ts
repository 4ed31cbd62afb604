import type { ServiceMetrics } from '../observability/metrics.ts';
import type { AppMiddleware } from './app-state.ts';

/** The `route` label of a request no route of the contract matched. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Koa middleware that observes every request in `http_request_duration_seconds`, labelled with
 * its method, the contract path of its route (never the raw URL, so unknown paths cannot
 * multiply the series) and the final status. Place it outside the error responder.
 *
 * @example
 * app.use(requestContext(logger));
 * app.use(requestMetrics(metrics));
 * app.use(errorResponder(logger));
 */
export function requestMetrics(metrics: ServiceMetrics): AppMiddleware {
  const histogram = metrics.requestDuration;
  return async function measureRequest(ctx, next) {
    const started = performance.now();
    try {
      await next();
    } finally {
      histogram.observe(
        {
          method: ctx.method,
          route: ctx.state.route ?? UNMATCHED_ROUTE,
          status: String(ctx.status),
        },
        (performance.now() - started) / 1000,
      );
    }
  };
}
