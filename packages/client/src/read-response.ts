import { formatIssues, parseJson, type Route } from '@plant-store/schema';
import type { AttemptOutcome } from './attempt-outcome.ts';
import { describeBody } from './describe-body.ts';
import { errorFromResponse } from './error-from-response.ts';
import { PlantStoreError } from './plant-store-error.ts';
import { PlantStoreNetworkError } from './plant-store-network-error.ts';
import type { RetriedOutcome } from './send-with-retries.ts';

type Response = Extract<AttemptOutcome, { kind: 'response' }>;

/**
 * Turns the final outcome of a call into the route's validated success body, or throws:
 * {@link PlantStoreNetworkError} when no response arrived, {@link PlantStoreError} for any
 * other status (see `errorFromResponse`) and for a success body that is not JSON or does not
 * match `route.response.schema` (then `status` is the success status and `code` undefined).
 *
 * @example
 * const plant = readResponse(contract.createPlant, url, await sendWithRetries(send, policy));
 */
export function readResponse(route: Route, url: string, result: RetriedOutcome): unknown {
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

function readSuccessBody(route: Route, response: Response, attempts: number): unknown {
  const details = { operationId: route.operationId, status: response.status, attempts };
  const prefix = `${route.operationId}: the ${response.status} response`;
  let json: unknown;
  try {
    json = parseJson(response.text);
  } catch (error) {
    throw new PlantStoreError(`${prefix} is not JSON (${describeBody(response)})`, {
      ...details,
      cause: error,
    });
  }
  const result = route.response.schema.safeParse(json);
  if (result.success) return result.data;
  throw new PlantStoreError(
    `${prefix} does not match the contract: ${formatIssues(result.error.issues)}`,
    { ...details, cause: result.error },
  );
}
