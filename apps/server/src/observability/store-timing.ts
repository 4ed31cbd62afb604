import type { PlantStore } from '../store/plant-store.ts';
import type { ServiceMetrics } from './metrics.ts';

/**
 * `store`, with every call timed into `metrics` (operation, outcome) and created plants counted.
 *
 * @example
 * await measureStore(store, metrics).create({ id: 1n, name: 'Fern' }); // create/created
 */
export function measureStore(store: PlantStore, metrics: ServiceMetrics): PlantStore {
  // One bound child per series, made once: observing it needs no label lookup per call.
  const series = (operation: string, outcomes: readonly string[]) =>
    new Map(
      outcomes.map((outcome) => [
        outcome,
        metrics.storeOperationDuration.labels({ operation, outcome }),
      ]),
    );
  const create = series('create', ['created', 'replayed', 'conflict', 'error']);
  const ping = series('ping', ['ok', 'error']);
  const timed = async <T>(call: () => Promise<T>, of: typeof ping, ok?: string) => {
    const started = performance.now();
    const observe = (outcome: string) =>
      of.get(outcome)?.observe((performance.now() - started) / 1000);
    try {
      const value = await call();
      observe(ok ?? String(value));
      return value;
    } catch (error) {
      observe('error');
      throw error;
    }
  };
  return {
    create: async (plant) => {
      const outcome = await timed(() => store.create(plant), create);
      if (outcome === 'created') metrics.plantsCreated.inc();
      return outcome;
    },
    ping: () => timed(() => store.ping(), ping, 'ok'),
    readiness: () => store.readiness(),
    close: () => store.close(),
  };
}
