import type { NewPlant } from '@plant-store/schema';
import type { CreateOutcome, PlantStore } from '../store/plant-store.ts';
import type { ServiceMetrics } from './metrics.ts';

/**
 * A PlantStore that times every call of `store` into `metrics` (operation, outcome) and counts
 * created plants; it changes nothing else. Closing it closes `store`.
 *
 * @example
 * const measured = measureStore(await openStore(url), metrics);
 * await measured.create({ id: 1n, name: 'Fern' }); // observed as create/created
 */
export function measureStore(store: PlantStore, metrics: ServiceMetrics): PlantStore {
  const duration = metrics.storeOperationDuration;
  // The label objects of every series, made once: the hot path allocates none.
  const labels = (operation: string, outcomes: readonly string[]) =>
    Object.fromEntries(outcomes.map((outcome) => [outcome, { operation, outcome }]));
  const create = labels('create', ['created', 'replayed', 'conflict', 'error']);
  const get = labels('get', ['found', 'missing', 'error']);
  const ping = labels('ping', ['ok', 'error']);
  const observe = (series: { operation: string; outcome: string } | undefined, started: number) => {
    if (series !== undefined) duration.observe(series, (performance.now() - started) / 1000);
  };
  // Each call is the store's promise and one continuation, not an async frame and closures.
  return {
    create: (plant: NewPlant) => {
      const started = performance.now();
      return store.create(plant).then(
        (outcome: CreateOutcome) => {
          if (outcome === 'created') metrics.plantsCreated.inc();
          observe(create[outcome], started);
          return outcome;
        },
        (error: unknown) => {
          observe(create.error, started);
          throw error;
        },
      );
    },
    get: (id: bigint) => {
      const started = performance.now();
      return store.get(id).then(
        (plant) => {
          observe(plant === undefined ? get.missing : get.found, started);
          return plant;
        },
        (error: unknown) => {
          observe(get.error, started);
          throw error;
        },
      );
    },
    ping: () => {
      const started = performance.now();
      return store.ping().then(
        () => observe(ping.ok, started),
        (error: unknown) => {
          observe(ping.error, started);
          throw error;
        },
      );
    },
    readiness: () => store.readiness(),
    close: () => store.close(),
  };
}
