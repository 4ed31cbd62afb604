import { AggregatorRegistry } from 'prom-client';
import type { ServiceMetrics } from './metrics.ts';

/** In a cluster worker: answers the primary's requests for this worker's metrics. */
export function shareWorkerMetrics(metrics: ServiceMetrics): void {
  new AggregatorRegistry(); // its constructor starts answering the primary's requests
  AggregatorRegistry.setRegistries([metrics.registry]);
}

/** In the primary: every worker's metrics added up (served by `startMetricsServer`). */
export function clusterMetrics(): Pick<ServiceMetrics, 'exposition'> {
  const registry = new AggregatorRegistry();
  return {
    exposition: async () => ({
      contentType: registry.contentType,
      body: await registry.clusterMetrics(),
    }),
  };
}
