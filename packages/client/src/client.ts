import { contract, type NewPlantInput, type Plant } from '@plant-store/schema';
import { callRoute } from './call-route.ts';
import { type PlantStoreClientOptions, resolveClientConfig } from './client-config.ts';

/** The Plant Store API, one method per operation of the contract. */
export interface PlantStoreClient {
  /**
   * `POST /plants`: creates a plant (or replays an identical create) and returns it.
   *
   * Rejects with `PlantStoreValidationError` (nothing sent) when `newPlant` is not a valid
   * NewPlant, and with `PlantStoreError` for any error response, a response that breaks the
   * contract, or — as `PlantStoreNetworkError` — no response after the retries.
   */
  createPlant(newPlant: NewPlantInput): Promise<Plant>;
}

/**
 * Creates a typed client for the Plant Store API. Requests are validated before they are sent
 * and responses after they arrive, with the schemas of `@plant-store/schema`; ids go over the
 * wire as exact 64-bit integers.
 *
 * @example
 * const client = createPlantStoreClient({ baseUrl: 'http://127.0.0.1:3000', token: 'secret' });
 * const plant = await client.createPlant({ id: 2n ** 63n - 1n, name: 'Monstera', tag: 'indoor' });
 * // { name: 'Monstera', tag: 'indoor' }
 */
export function createPlantStoreClient(options: PlantStoreClientOptions): PlantStoreClient {
  const config = resolveClientConfig(options);
  return {
    createPlant: (newPlant) => callRoute(config, contract.createPlant, newPlant),
  };
}
