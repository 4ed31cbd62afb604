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
   *
   * Safe to retry: an identical replay answers 200 with the same plant. The client itself
   * retries a network failure, a timeout, a 429 and a 502/503/504, waiting what `Retry-After`
   * says up to `maxRetryDelayMs`.
   */
  createPlant(newPlant: NewPlantInput): Promise<Plant>;
}

/**
 * Creates a typed client for the Plant Store API. Requests are validated before they are sent
 * and responses after they arrive, with the schemas of `@plant-store/schema`; ids go over the
 * wire as exact 64-bit integers.
 *
 * Retries (`retries`, default 2): no response (refused or dropped connection, timeout), 429 Too
 * Many Requests and 502/503/504, with exponential backoff from `retryDelayMs`, waiting at least
 * the response's `Retry-After` (seconds or an HTTP date). A `Retry-After` longer than
 * `maxRetryDelayMs` (default 10 s) is not waited for: the call fails at once with that
 * `retryAfter` on the error. Other 4xx and 500 are never retried.
 *
 * @example
 * const client = createPlantStoreClient({ baseUrl: 'http://127.0.0.1:3000', token: 'secret' });
 * const plant = await client.createPlant({ id: 2n ** 63n - 1n, name: 'Monstera', tag: 'indoor' });
 * // { name: 'Monstera', tag: 'indoor' }
 *
 * @example
 * // Over the rate limit for longer than the client waits: back off as the server asks.
 * try {
 *   await client.createPlant({ id: 7, name: 'Fern' });
 * } catch (error) {
 *   if (error instanceof PlantStoreError && error.status === 429) {
 *     // error.code === 42901; retry in error.retryAfter seconds
 *   }
 * }
 */
export function createPlantStoreClient(options: PlantStoreClientOptions): PlantStoreClient {
  const config = resolveClientConfig(options);
  return {
    createPlant: (newPlant) => callRoute(config, contract.createPlant, newPlant),
  };
}
