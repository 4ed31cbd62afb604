import { type Route, type RouteInput, type RouteResult, stringifyJson } from '@plant-store/schema';
import type { ClientConfig } from './client-config.ts';
import { buildHttpRequest } from './http-request.ts';
import { PlantStoreValidationError } from './plant-store-validation-error.ts';
import { readResponse } from './read-response.ts';
import { sendOnce } from './send-once.ts';
import { sendWithRetries } from './send-with-retries.ts';
import { validateBody } from './validate-body.ts';

/**
 * Calls any route of the contract, everything derived from the route: the input is validated
 * with `route.body` (refused → {@link PlantStoreValidationError}, nothing sent) and serialized
 * with `stringifyJson` (bigints exact); the method, path and credential come from the route;
 * the success body is validated with `route.response.schema`. Failures are retried per
 * `config.retry`; what is left is thrown as a `PlantStoreError`.
 *
 * @example
 * const plant = await callRoute(config, contract.createPlant, { id: 10n, name: 'Monstera' });
 * const health = await callRoute(config, contract.getHealth, undefined);
 */
export async function callRoute<R extends Route>(
  config: ClientConfig,
  route: R,
  input: RouteInput<R>,
): Promise<RouteResult<R>> {
  const request = buildHttpRequest(route, config, encodeBody(route, input));
  const result = await sendWithRetries(() => sendOnce(config.fetcher, request), config.retry);
  return readResponse(route, request.url, result) as RouteResult<R>;
}

function encodeBody(route: Route, input: unknown): string | undefined {
  if (route.body === undefined) return undefined;
  const verdict = validateBody(route.body, input);
  if (!verdict.ok) throw new PlantStoreValidationError(verdict.message, verdict.issues);
  return stringifyJson(verdict.value);
}
