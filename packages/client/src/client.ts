import {
  createPlantCall,
  formatIssues,
  type HttpMethod,
  type NewPlantInput,
  type Plant,
  type RouteCall,
  type RouteInput,
  type RouteResult,
  stringifyJson,
} from '@plant-store/schema/shapes';
import {
  describeBody,
  errorFromResponse,
  PlantStoreError,
  PlantStoreNetworkError,
  PlantStoreValidationError,
  parseBody,
} from './errors.ts';
import { type ClientConfig, type PlantStoreClientOptions, resolveClientConfig } from './options.ts';
import {
  type HttpRequest,
  type ResponseOutcome,
  type RetriedOutcome,
  sendOnce,
  sendWithRetries,
} from './retry.ts';

/** The Plant Store API, one method per operation of the contract. */
export interface PlantStoreClient {
  /**
   * `POST /plants`: creates a plant (or replays an identical create) and returns it.
   *
   * Rejects only with a `PlantStoreError`: as its `PlantStoreValidationError` (nothing sent)
   * when `newPlant` is not a valid NewPlant, as its `PlantStoreNetworkError` when no response
   * came after the retries, and as a `PlantStoreError` itself for an error response or a
   * response that breaks the contract.
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
 * Pacing (`pacer: new Pacer()`, off by default): the calls of the clients given one `Pacer`
 * share the server's rate limit as its `X-RateLimit-*` headers describe it: they use the burst,
 * then go at the sustained rate, so a bulk import at any concurrency is not refused.
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
  return clientFromConfig(resolveClientConfig(options));
}

/** The client for an already-resolved configuration (tests inject `sleep` through it). */
export function clientFromConfig(config: ClientConfig): PlantStoreClient {
  return {
    createPlant: (newPlant) => callRoute(config, createPlantCall, newPlant),
  };
}

/**
 * Calls any route of the contract, everything derived from the route: the input is validated
 * with `route.body` (refused → {@link PlantStoreValidationError}, nothing sent) and serialized
 * with `stringifyJson` (bigints exact); the method, path and credential come from the route;
 * the success body is validated with `route.response.schema`. Failures are retried per
 * `config.retry`; what is left is thrown as a `PlantStoreError`. With `config.pacer`, every
 * attempt waits its turn under the server's rate limit first.
 *
 * @example
 * const plant = await callRoute(config, contract.createPlant, { id: 10n, name: 'Monstera' });
 * const health = await callRoute(config, contract.getHealth, undefined);
 */
export async function callRoute<R extends RouteCall>(
  config: ClientConfig,
  route: R,
  input: RouteInput<R>,
): Promise<RouteResult<R>> {
  const request = buildHttpRequest(route, config, encodeBody(route, input));
  const { pacer } = config;
  const send = () => sendOnce(config.fetcher, request);
  const result = await sendWithRetries(
    pacer ? () => pacer.sendAttempt(send) : send,
    config.retry,
    config.sleep,
  );
  return readResponse(route, request.url, result) as RouteResult<R>;
}

function encodeBody(route: RouteCall, input: unknown): string | undefined {
  if (route.body === undefined) return undefined;
  const result = route.body.safeParse(input);
  if (!result.success) {
    const { issues } = result.error;
    throw new PlantStoreValidationError(formatIssues(issues), {
      operationId: route.operationId,
      issues,
    });
  }
  return stringifyJson(result.data);
}

/** What {@link buildHttpRequest} needs besides the route. */
interface RequestSettings {
  readonly baseUrl: string;
  readonly token: string;
  readonly timeoutMs: number;
}

/**
 * Derives the request for `route` from the contract: method, path, the bearer credential when
 * the route requires one, and `accept: application/json`. `body` is already-serialized JSON, or `undefined`
 * for a route without a body.
 *
 * @example
 * buildHttpRequest(contract.createPlant, settings, '{"id":1,"name":"Fern"}');
 * // { url: 'http://api.test/plants', method: 'POST', headers: { accept, authorization }, … }
 */
export function buildHttpRequest(
  route: RouteCall,
  settings: RequestSettings,
  body: string | undefined,
): HttpRequest {
  // `content-type: application/json` is ofetch's for a string body (client.test.ts checks the wire).
  const headers: Record<string, string> = { accept: 'application/json' };
  if (route.auth === 'bearer') headers.authorization = `Bearer ${settings.token}`;
  return {
    url: `${settings.baseUrl.replace(/\/+$/, '')}${route.path}`,
    method: route.method.toUpperCase() as Uppercase<HttpMethod>,
    headers,
    body,
    timeoutMs: settings.timeoutMs,
  };
}

/**
 * Turns the final outcome of a call into the route's validated success body, or throws:
 * {@link PlantStoreNetworkError} when no response arrived, {@link PlantStoreError} for any
 * other status (see `errorFromResponse`) and for a success body that is not JSON or does not
 * match `route.response.schema` (then `status` is the success status and `code` undefined).
 *
 * @example
 * const plant = readResponse(contract.createPlant, url, await sendWithRetries(send, policy));
 */
export function readResponse(route: RouteCall, url: string, result: RetriedOutcome): unknown {
  const { outcome, attempts } = result;
  const { operationId } = route;
  if (outcome.kind === 'failure') {
    throw new PlantStoreNetworkError({
      operationId,
      url,
      timedOut: outcome.timedOut,
      attempts,
      cause: outcome.error,
    });
  }
  if (outcome.status !== route.response.status) {
    throw errorFromResponse(operationId, outcome, attempts);
  }
  return readSuccessBody(route, outcome, attempts);
}

function readSuccessBody(route: RouteCall, response: ResponseOutcome, attempts: number): unknown {
  const details = { operationId: route.operationId, status: response.status, attempts };
  const prefix = `${route.operationId}: the ${response.status} response`;
  // No response body of the contract holds an int64 (ids are only ever sent), so JSON.parse
  // reads each exactly; a browser bundle needs no JSON library (test: responses-int64.test.ts).
  const result = parseBody(route.response.schema, response.text);
  if (result instanceof Error) {
    throw new PlantStoreError(`${prefix} is not JSON (${describeBody(response)})`, {
      ...details,
      cause: result,
    });
  }
  if (result.success) return result.data;
  throw new PlantStoreError(
    `${prefix} does not match the contract: ${formatIssues(result.error.issues)}`,
    { ...details, cause: result.error },
  );
}
