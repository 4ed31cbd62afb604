import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';
import type { ServiceMetrics } from './metrics.ts';

// prom-client's cluster support, loaded only when a cluster serves metrics.
const require = createRequire(import.meta.url);

function aggregatorRegistry(): typeof PromClient.AggregatorRegistry {
  return require('prom-client/lib/cluster.js') as typeof PromClient.AggregatorRegistry;
}

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
  const AggregatorRegistry = aggregatorRegistry();
  new AggregatorRegistry();
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
  const AggregatorRegistry = aggregatorRegistry();
  const registry = new AggregatorRegistry();
  return {
    exposition: async () => ({
      contentType: registry.contentType,
      body: await registry.clusterMetrics(),
    }),
  };
}
