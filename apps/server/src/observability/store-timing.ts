import type { NewPlant } from '@plant-store/schema';
import type { CreateOutcome, PlantStore } from '../store/plant-store.ts';
import type { ServiceMetrics } from './metrics.ts';

/**
 * `store`, with every call timed into `metrics` (operation, outcome) and created plants counted.
 *
 * @example
 * const measured = measureStore(store, metrics);
 * await measured.create({ id: 1n, name: 'Fern' }); // observed as create/created
 */
export function measureStore(store: PlantStore, metrics: ServiceMetrics): PlantStore {
  // One bound child per series, made once: observing it needs no label lookup per call.
  const series = (operation: string, outcomes: readonly string[]) =>
    Object.fromEntries(
      outcomes.map((outcome) => [
        outcome,
        metrics.storeOperationDuration.labels({ operation, outcome }),
      ]),
    );
  const create = series('create', ['created', 'replayed', 'conflict', 'error']);
  const ping = series('ping', ['ok', 'error']);
  const observe = (child: { observe(value: number): void } | undefined, started: number) => {
    child?.observe((performance.now() - started) / 1000);
  };
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
