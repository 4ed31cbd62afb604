import { type Contract, ERROR_MESSAGES, toPlant } from '@plant-store/schema';
import { ApiError } from './api-error.ts';
import type { Handler } from './http/contract-router.ts';
import { storeUnavailable } from './http/to-api-error.ts';
import type { PlantStore } from './store/plant-store.ts';

/** Where a shutdown is (connection/drain.ts moves it on; `/readyz` and the app read it). */
export interface Lifecycle {
  /** From the signal on: `/readyz` answers 503. */
  draining: boolean;
  /** Once the listener is closed: every answer says `Connection: close`. */
  closing: boolean;
}

/** The operations answered by a handler (`getOpenApiDocument` is a built file: app.ts). */
export type ContractHandlers = {
  readonly [K in Exclude<keyof Contract, 'getOpenApiDocument'>]: Handler<Contract[K]>;
};

/** The handler of each operation, over `store`; `/readyz` reads `lifecycle`. */
export function contractHandlers(store: PlantStore, lifecycle: Lifecycle): ContractHandlers {
  return {
    // An identical replay answers the same Plant (a safe retry); any other field's value is a 409.
    createPlant: async ({ body }) => {
      if ((await store.create(body)) === 'conflict') {
        throw new ApiError('conflict', ERROR_MESSAGES.conflict(BigInt(body.id)));
      }
      return toPlant(body);
    },
    getHealth: async () => ({ status: 'ok' }),
    // Ready means able to commit (the one operation is a write), not merely reachable.
    getReadiness: async () => {
      const { shuttingDown, notReady } = ERROR_MESSAGES.storeUnavailable;
      if (lifecycle.draining) throw storeUnavailable(shuttingDown);
      const readiness = store.readiness();
      if (!readiness.ready) throw storeUnavailable(notReady(readiness.cause.code));
      await store.ping();
      return { status: 'ok' };
    },
    getIndex: async () => ({ docs: '/docs', openapi: '/openapi.json' }),
  };
}
