import {
  type CallInput,
  createPlantCall,
  formatIssues,
  type HttpMethod,
  type NewPlantInput,
  type OperationCall,
  type OperationResult,
  type Plant,
  stringifyJson,
} from '@plant-store/schema/shapes';
import { joinURL, type QueryObject, withQuery } from 'ufo';
import {
  describeBody,
  errorFromResponse,
  PlantStoreError,
  PlantStoreNetworkError,
  PlantStoreValidationError,
  parseBody,
} from './errors.ts';
import { type ClientConfig, type PlantStoreClientOptions, resolveClientConfig } from './options.ts';
import { type HttpRequest, type RetriedOutcome, sendOnce, sendWithRetries } from './retry.ts';

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
    createPlant: (newPlant) => callOperation(config, createPlantCall, { body: newPlant }),
  };
}

/**
 * Calls any operation of the contract, everything derived from its entry: the path parameters
 * and query parameters are sent as `String(value)` and the body as exact JSON (`stringifyJson`),
 * each checked with its schema first (refused → {@link PlantStoreValidationError}, nothing
 * sent); the path template is filled (each value `encodeURIComponent`-encoded); the method and
 * credential come from the entry; the success body is validated with its response schema.
 * Failures are retried per `config.retry`; what is left is thrown as a `PlantStoreError`. With
 * `config.pacer`, every attempt waits its turn under the server's rate limit first.
 *
 * @example
 * const plant = await callOperation(config, createPlantCall, { body: { id: 10n, name: 'Monstera' } });
 * const health = await callOperation(config, contract.getHealth, {});
 */
export async function callOperation<C extends OperationCall>(
  config: ClientConfig,
  operation: C,
  input: CallInput<C>,
): Promise<OperationResult<C>> {
  const request = buildHttpRequest(operation, config, input);
  const { pacer } = config;
  const send = () => sendOnce(config.fetcher, request);
  const result = await sendWithRetries(
    pacer ? () => pacer.sendAttempt(send) : send,
    config.retry,
    config.sleep,
  );
  return readResponse(operation, request.url, result) as OperationResult<C>;
}

/** What {@link buildHttpRequest} needs besides the operation and its input. */
interface RequestSettings {
  readonly baseUrl: string;
  readonly token: string;
  readonly timeoutMs: number;
}

/**
 * Derives the request for `operation` from the contract: its method; its path under `baseUrl`,
 * each `{name}` filled with `encodeURIComponent(params[name])`; the defined query parameters
 * (strings, numbers, booleans, or arrays of them); the body checked with its schema (refused → {@link PlantStoreValidationError},
 * nothing sent) and written as exact JSON (`stringifyJson`); the bearer credential when the
 * operation requires one, and `accept: application/json`. Parameters are sent as their text
 * (`String(value)`, a bigint's digits); the server checks them (a 400 naming the parameter).
 *
 * @example
 * buildHttpRequest(createPlantCall, settings, { body: { id: 1, name: 'Fern' } });
 * // { url: 'http://api.test/plants', method: 'POST', headers: { accept, authorization }, body: '{"id":1,"name":"Fern"}', … }
 */
export function buildHttpRequest(
  operation: OperationCall,
  settings: RequestSettings,
  input: {
    readonly params?: Readonly<Record<string, unknown>> | undefined;
    readonly query?: Readonly<Record<string, unknown>> | undefined;
    readonly body?: unknown;
  },
): HttpRequest {
  // `content-type: application/json` is ofetch's for a string body (client.test.ts checks the wire).
  const headers: Record<string, string> = { accept: 'application/json' };
  if (operation.auth === 'bearer') headers.authorization = `Bearer ${settings.token}`;
  const checked = operation.body?.safeParse(input.body);
  if (checked?.success === false) {
    const { issues } = checked.error;
    throw new PlantStoreValidationError(formatIssues(issues), {
      operationId: operation.operationId,
      issues,
    });
  }
  return {
    // ufo (ofetch's URL library) writes the query: the undefined values left out, an array
    // as one parameter per item.
    url: withQuery(
      joinURL(
        settings.baseUrl,
        // encodeURIComponent reads any value as its text.
        operation.path.replace(/\{(\w+)\}/g, (_, name: string) =>
          encodeURIComponent(input.params?.[name] as string),
        ),
      ),
      input.query as QueryObject,
    ),
    method: operation.method.toUpperCase() as Uppercase<HttpMethod>,
    headers,
    body: checked && stringifyJson(checked.data),
    timeoutMs: settings.timeoutMs,
  };
}

/**
 * Turns the final outcome of a call into the operation's validated success body, or throws:
 * {@link PlantStoreNetworkError} when no response arrived, {@link PlantStoreError} for any
 * other status (see `errorFromResponse`) and for a success body that is not JSON or does not
 * match `operation.response.schema` (then `status` is the success status and `code` undefined).
 *
 * @example
 * const plant = readResponse(createPlantCall, url, await sendWithRetries(send, policy));
 */
export function readResponse(
  operation: OperationCall,
  url: string,
  { outcome, attempts }: RetriedOutcome,
): unknown {
  const { operationId } = operation;
  if (outcome.kind === 'failure') {
    throw new PlantStoreNetworkError({
      operationId,
      url,
      timedOut: outcome.timedOut,
      attempts,
      cause: outcome.error,
    });
  }
  if (outcome.status !== operation.response.status) {
    throw errorFromResponse(operationId, outcome, attempts);
  }
  // No response body of the contract holds an int64 (ids are only ever sent), so JSON.parse
  // reads each exactly; a browser bundle needs no JSON library (test: responses-int64.test.ts).
  const result = parseBody(operation.response.schema, outcome.text);
  const notJson = result instanceof Error;
  if (!notJson && result.success) return result.data;
  throw new PlantStoreError(
    `${operationId}: the ${outcome.status} response ${
      notJson
        ? `is not JSON (${describeBody(outcome)})`
        : `does not match the contract: ${formatIssues(result.error.issues)}`
    }`,
    { operationId, status: outcome.status, attempts, cause: notJson ? result : result.error },
  );
}
