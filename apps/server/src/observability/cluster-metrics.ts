import { AggregatorRegistry } from 'prom-client';
import type { ServiceMetrics } from './metrics.ts';

/**
 * In a cluster worker: answers the primary's requests for this worker's metrics.
 *
 * @example
 * shareWorkerMetrics(new ServiceMetrics());
 */
export function shareWorkerMetrics(metrics: ServiceMetrics): void {
  new AggregatorRegistry(); // its constructor starts answering the primary's requests
  AggregatorRegistry.setRegistries([metrics.registry]);
}

/**
 * In the primary: every worker's metrics added up.
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
