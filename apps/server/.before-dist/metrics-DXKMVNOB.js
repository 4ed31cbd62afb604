import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);

// src/observability/metrics.ts
import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";
var LATENCY_BUCKETS = [
  5e-4,
  1e-3,
  25e-4,
  5e-3,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10
];
var ServiceMetrics = class {
  registry = new Registry();
  requestDuration = new Histogram({
    name: "http_request_duration_seconds",
    help: "Time from receiving a request to answering it, by method, route and status.",
    labelNames: ["method", "route", "status"],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry]
  });
  plantsCreated = new Counter({
    name: "plant_store_plants_created_total",
    help: "Plants newly stored (replays of an existing plant are not counted).",
    registers: [this.registry]
  });
  storeOperationDuration = new Histogram({
    name: "plant_store_operation_duration_seconds",
    help: "Store calls by operation and outcome, as the API waits for them.",
    labelNames: ["operation", "outcome"],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry]
  });
  groupCommitBatchSize = new Histogram({
    name: "plant_store_group_commit_batch_size",
    help: "Creates committed together in one transaction.",
    buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3],
    // up to the store's maximum batch
    registers: [this.registry]
  });
  groupCommitDuration = new Histogram({
    name: "plant_store_group_commit_duration_seconds",
    help: "Time one group-commit transaction took, by whether it committed.",
    labelNames: ["committed"],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry]
  });
  rateLimited = new Counter({
    name: "plant_store_rate_limited_total",
    help: 'Requests refused with 429: limit="token" (per credential) or "address" (refused credentials per client address).',
    labelNames: ["limit"],
    registers: [this.registry]
  });
  constructor(options = {}) {
    const defaults = { register: this.registry, eventLoopMonitoringPrecision: 100 };
    if (options.processMetrics !== false) collectDefaultMetrics(defaults);
  }
  storeObserver() {
    return {
      onCommit: (size, seconds, committed) => {
        if (committed) this.groupCommitBatchSize.observe(size);
        this.groupCommitDuration.observe({ committed: String(committed) }, seconds);
      }
    };
  }
  async exposition() {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
};
export {
  ServiceMetrics
};
//# sourceMappingURL=metrics-DXKMVNOB.js.map