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
  /** One `then` per call: the outcome's series hears how long the call took. */
  const timed = <T>(call: Promise<T>, of: typeof ping, ok?: string): Promise<T> => {
    const started = performance.now();
    const observe = (outcome: string) =>
      of.get(outcome)?.observe((performance.now() - started) / 1000);
    return call.then(
      (value) => {
        observe(ok ?? String(value));
        if (value === 'created') metrics.plantsCreated.inc();
        return value;
      },
      (error: unknown) => {
        observe('error');
        throw error;
      },
    );
  };
  return {
    create: (plant) => timed(store.create(plant), create),
    ping: () => timed(store.ping(), ping, 'ok'),
    readiness: () => store.readiness(),
    close: () => store.close(),
  };
}
