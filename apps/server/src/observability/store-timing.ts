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
  const timed = async <T>(
    operation: string,
    call: () => Promise<T>,
    outcomeOf: (value: T) => string,
  ): Promise<T> => {
    const started = performance.now();
    let outcome = 'error';
    try {
      const value = await call();
      outcome = outcomeOf(value);
      return value;
    } finally {
      duration.observe({ operation, outcome }, (performance.now() - started) / 1000);
    }
  };
  return {
    create: (plant: NewPlant) =>
      timed(
        'create',
        () => store.create(plant),
        (outcome: CreateOutcome) => {
          if (outcome === 'created') metrics.plantsCreated.inc();
          return outcome;
        },
      ),
    get: (id: bigint) =>
      timed(
        'get',
        () => store.get(id),
        (plant) => (plant === undefined ? 'missing' : 'found'),
      ),
    ping: () =>
      timed(
        'ping',
        () => store.ping(),
        () => 'ok',
      ),
    readiness: () => store.readiness(),
    close: () => store.close(),
  };
}
