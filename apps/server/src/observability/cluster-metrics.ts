import { AggregatorRegistry } from 'prom-client';
import type { ServiceMetrics } from './metrics.ts';

/**
 * In a cluster worker: answers the primary's requests for this worker's metrics
 * (prom-client's AggregatorRegistry protocol) from `metrics`' registry. The worker serves no
 * metrics listener of its own: with WEB_CONCURRENCY > 1 every worker would share that port
 * and each scrape would see one worker's counts.
 *
 * @example
 * shareWorkerMetrics(new ServiceMetrics());
 */
export function shareWorkerMetrics(metrics: ServiceMetrics): void {
  new AggregatorRegistry(); // its constructor starts answering the primary's requests
  AggregatorRegistry.setRegistries([metrics.registry]);
}

/**
 * In the primary: the exposition of every worker's metrics added up (counters and histograms
 * summed), for the metrics listener (`startMetricsServer`).
 *
 * @example
 * const listener = await startMetricsServer(clusterMetrics(), config.metrics, logger, options);
 */
export function clusterMetrics(): Pick<ServiceMetrics, 'exposition'> {
  const registry = new AggregatorRegistry();
  return {
    exposition: async () => ({
      contentType: registry.contentType,
      body: await registry.clusterMetrics(),
    }),
  };
}
