import type { ServiceMetrics } from '../observability/metrics.ts';

/** The `route` label of a request no route of the contract matched. */
export const UNMATCHED_ROUTE = 'unmatched';

/** Observes one answered request: method, contract path (or none), status, duration in ms. */
export type RequestObserver = (
  method: string,
  route: string | undefined,
  status: number,
  durationMs: number,
) => void;

/**
 * Observes requests in `http_request_duration_seconds`, labelled with the method, the
 * contract path of the route (never the raw URL, so unknown paths cannot multiply the series)
 * and the final status. The label objects are made once per series and reused: the series are
 * few (routes × statuses × methods), and the hot path then allocates nothing for them.
 *
 * @example
 * const observe = requestObserver(metrics);
 * observe('POST', '/plants', 200, 1.5);
 */
export function requestObserver(metrics: ServiceMetrics): RequestObserver {
  const histogram = metrics.requestDuration;
  type Labels = { method: string; route: string; status: string };
  // route → status → method → labels. Routes are the contract's paths and `unmatched`,
  // statuses the few the API answers, methods the ones Node's HTTP parser accepts.
  const series = new Map<string, Map<number, Map<string, Labels>>>();
  const labelsOf = (method: string, route: string, status: number): Labels => {
    let byStatus = series.get(route);
    if (byStatus === undefined) {
      byStatus = new Map();
      series.set(route, byStatus);
    }
    let byMethod = byStatus.get(status);
    if (byMethod === undefined) {
      byMethod = new Map();
      byStatus.set(status, byMethod);
    }
    let labels = byMethod.get(method);
    if (labels === undefined) {
      labels = { method, route, status: String(status) };
      byMethod.set(method, labels);
    }
    return labels;
  };
  return (method, route, status, durationMs) => {
    histogram.observe(labelsOf(method, route ?? UNMATCHED_ROUTE, status), durationMs / 1000);
  };
}
