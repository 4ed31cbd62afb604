import { AggregatorRegistry } from 'prom-client';
import type { ServiceMetrics } from './metrics.ts';

/** In a cluster worker: `metrics` is what the primary's requests are answered with. */
export function shareWorkerMetrics(metrics: ServiceMetrics): void {
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
