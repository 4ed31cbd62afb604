import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import type { StoreObserver } from '../store/plant-store.ts';

/** Seconds: from 0.5 ms (a replayed create) to 10 s (a stalled disk). */
const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];
/** Creates per group commit: 1 when idle, up to the store's maximum batch (1000) under load. */
const BATCH_SIZE_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];

/** Which limit refused a request with 429. */
export type RateLimitName = 'token' | 'address';

/**
 * The service's Prometheus metrics (listed in docs/operations.md), on a registry of their own,
 * so several apps in one process (tests) never clash. `route` is the contract path, or
 * `unmatched` (a scan cannot add series).
 *
 * @example
 * const metrics = new ServiceMetrics();
 * metrics.plantsCreated.inc();
 * const text = await metrics.registry.metrics();
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly requestDuration: Histogram<'method' | 'route' | 'status'>;
  readonly plantsCreated: Counter;
  readonly storeOperationDuration: Histogram<'operation' | 'outcome'>;
  readonly groupCommitBatchSize: Histogram;
  readonly groupCommitDuration: Histogram<'committed'>;
  readonly rateLimited: Counter<'limit'>;

  constructor(options: { readonly processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.requestDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from receiving a request to answering it, by method, route and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.plantsCreated = new Counter({
      name: 'plant_store_plants_created_total',
      help: 'Plants newly stored (replays of an existing plant are not counted).',
      registers,
    });
    this.storeOperationDuration = new Histogram({
      name: 'plant_store_operation_duration_seconds',
      help: 'Store calls by operation and outcome, as the API waits for them.',
      labelNames: ['operation', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.groupCommitBatchSize = new Histogram({
      name: 'plant_store_group_commit_batch_size',
      help: 'Creates committed together in one transaction.',
      buckets: BATCH_SIZE_BUCKETS,
      registers,
    });
    this.groupCommitDuration = new Histogram({
      name: 'plant_store_group_commit_duration_seconds',
      help: 'Time one group-commit transaction took, by whether it committed.',
      labelNames: ['committed'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.rateLimited = new Counter({
      name: 'plant_store_rate_limited_total',
      help: 'Requests refused with 429: limit="token" (per credential) or "address" (refused credentials per client address).',
      labelNames: ['limit'],
      registers,
    });
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  /** The hooks a store calls (see `StoreObserver`), feeding the group-commit histograms. */
  storeObserver(): StoreObserver {
    return {
      onCommit: (size, seconds, committed) => {
        if (committed) this.groupCommitBatchSize.observe(size);
        this.groupCommitDuration.observe({ committed: String(committed) }, seconds);
      },
    };
  }

  /** The exposition text and its content type, for `GET /metrics`. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
