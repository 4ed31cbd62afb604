import {
  type Contract,
  ERROR_MESSAGES,
  type NewPlant,
  type Plant,
  toPlant,
} from '@plant-store/schema';
import { ApiError } from './api-error.ts';
import type { Handler } from './http/contract-router.ts';
import { STORE_RETRY_AFTER_SECONDS } from './http/to-api-error.ts';
import type { PlantStore } from './store/plant-store.ts';

/** Where a shutdown is (connection/drain.ts moves it on; `/readyz` and the app read it). */
export interface Lifecycle {
  /** From the signal on: `/readyz` answers 503. */
  draining: boolean;
  /** Once the listener is closed: every answer says `Connection: close`. */
  closing: boolean;
}

/** An identical replay answers the same Plant (a safe retry); any other field's value is a 409. */
async function createPlant(store: PlantStore, newPlant: NewPlant): Promise<Plant> {
  if ((await store.create(newPlant)) === 'conflict') {
    throw new ApiError('conflict', ERROR_MESSAGES.conflict(BigInt(newPlant.id)));
  }
  return toPlant(newPlant);
}

/** The operations answered by a handler (`getOpenApiDocument` is a built file: app.ts). */
export type ContractHandlers = {
  readonly [K in Exclude<keyof Contract, 'getOpenApiDocument'>]: Handler<Contract[K]>;
};

/** The handler of each operation, over `store`; `/readyz` reads `lifecycle`. */
export function contractHandlers(store: PlantStore, lifecycle: Lifecycle): ContractHandlers {
  return {
    createPlant: ({ body }) => createPlant(store, body),
    getHealth: async () => ({ status: 'ok' }),
    // Ready means able to commit (the one operation is a write), not merely reachable.
    getReadiness: async () => {
      const retry = { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) };
      if (lifecycle.draining) {
        throw new ApiError('storeUnavailable', ERROR_MESSAGES.storeUnavailable.shuttingDown, retry);
      }
      const readiness = store.readiness();
      if (!readiness.ready) {
        throw new ApiError(
          'storeUnavailable',
          ERROR_MESSAGES.storeUnavailable.notReady(readiness.cause.code),
          retry,
        );
      }
      await store.ping();
      return { status: 'ok' };
    },
    getIndex: async () => ({ docs: '/docs', openapi: '/openapi.json' }),
  };
}
