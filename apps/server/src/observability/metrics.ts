import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import type { StoreObserver } from '../store/plant-store.ts';
import { droppedLogLines } from './logger.ts';

/** Seconds: from 0.5 ms (a replayed create) to 10 s (a stalled disk). */
const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

export type RateLimitName = 'token' | 'address';

/**
 * A registry of their own, so apps in one process (tests) never clash. `route` is the contract
 * path or `unmatched`, so a scan cannot add series.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly requestDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to answering it, by method, route and status.',
    labelNames: ['method', 'route', 'status'],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly plantsCreated = new Counter({
    name: 'plant_store_plants_created_total',
    help: 'Plants newly stored (replays of an existing plant are not counted).',
    registers: [this.registry],
  });
  readonly storeOperationDuration = new Histogram({
    name: 'plant_store_operation_duration_seconds',
    help: 'Store calls by operation and outcome, as the API waits for them.',
    labelNames: ['operation', 'outcome'],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly groupCommitBatchSize = new Histogram({
    name: 'plant_store_group_commit_batch_size',
    help: 'Creates committed together in one transaction.',
    buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000], // up to the store's maximum batch
    registers: [this.registry],
  });
  readonly groupCommitDuration = new Histogram({
    name: 'plant_store_group_commit_duration_seconds',
    help: 'Time one group-commit transaction took, by whether it committed.',
    labelNames: ['committed'],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly rateLimited = new Counter({
    name: 'plant_store_rate_limited_total',
    help: 'Requests refused with 429: limit="token" (per credential) or "address" (refused credentials per client address).',
    labelNames: ['limit'],
    registers: [this.registry],
  });

  readonly logLinesDropped = new Counter({
    name: 'plant_store_log_lines_dropped_total',
    help: 'Log lines dropped because stdout failed or stalled past its buffer.',
    registers: [this.registry],
    collect() {
      this.reset();
      this.inc(droppedLogLines());
    },
  });

  constructor() {
    // The event-loop delay sampled every 100 ms, not prom-client's 10 (a timer wakeup each).
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 100 });
  }

  storeObserver(): StoreObserver {
    return {
      onCommit: (size, seconds, committed) => {
        if (committed) this.groupCommitBatchSize.observe(size);
        this.groupCommitDuration.observe({ committed: String(committed) }, seconds);
      },
      onCall: (operation, outcome, seconds) => {
        this.storeOperationDuration.observe({ operation, outcome }, seconds);
        if (outcome === 'created') this.plantsCreated.inc();
      },
    };
  }
}
