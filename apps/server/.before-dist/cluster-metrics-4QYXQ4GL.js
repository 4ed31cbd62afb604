import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);

// src/observability/cluster-metrics.ts
import { AggregatorRegistry } from "prom-client";
function shareWorkerMetrics(metrics) {
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([metrics.registry]);
}
function clusterMetrics() {
  const registry = new AggregatorRegistry();
  return {
    exposition: async () => ({
      contentType: registry.contentType,
      body: await registry.clusterMetrics()
    })
  };
}
export {
  clusterMetrics,
  shareWorkerMetrics
};
//# sourceMappingURL=cluster-metrics-4QYXQ4GL.js.map