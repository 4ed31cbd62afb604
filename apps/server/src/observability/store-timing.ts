import type { PlantStore } from '../store/plant-store.ts';
import type { ServiceMetrics } from './metrics.ts';

/**
 * `store`, with every call timed into `metrics` (operation, outcome) and created plants counted.
 *
 * @example
 * await measureStore(store, metrics).create({ id: 1n, name: 'Fern' }); // create/created
 */
export function measureStore(store: PlantStore, metrics: ServiceMetrics): PlantStore {
  /** One `then` per call: prom-client's timer ends with the call's outcome. */
  const timed = <T>(operation: string, call: Promise<T>, outcome: (value: T) => string) => {
    const end = metrics.storeOperationDuration.startTimer({ operation });
    return call.then(
      (value) => {
        end({ outcome: outcome(value) });
        if (value === 'created') metrics.plantsCreated.inc();
        return value;
      },
      (error: unknown) => {
        end({ outcome: 'error' });
        throw error;
      },
    );
  };
  return {
    create: (plant) => timed('create', store.create(plant), String),
    ping: () => timed('ping', store.ping(), () => 'ok'),
    readiness: () => store.readiness(),
    close: () => store.close(),
  };
}
