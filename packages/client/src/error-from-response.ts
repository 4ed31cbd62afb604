import { ErrorBody, parseJson } from '@plant-store/schema';
import type { AttemptOutcome } from './attempt-outcome.ts';
import { describeBody } from './describe-body.ts';
import { PlantStoreError } from './plant-store-error.ts';

type Response = Extract<AttemptOutcome, { kind: 'response' }>;

/**
 * The {@link PlantStoreError} for a response that is not the route's success: with the Error
 * body's `error` as `code` and its `message` verbatim when the body is an Error, or with
 * `code: undefined` and a message describing the status and body when it is not (an HTML page
 * from a proxy, an empty body, …).
 *
 * @example
 * errorFromResponse('createPlant', response, 1);
 * // PlantStoreError { status: 409, code: 40901, message: 'A plant with id 10 already exists …' }
 */
export function errorFromResponse(
  operationId: string,
  response: Response,
  attempts: number,
): PlantStoreError {
  const details = {
    operationId,
    status: response.status,
    retryAfter: response.retryAfter,
    attempts,
  };
  const body = readErrorBody(response.text);
  if (body) return new PlantStoreError(body.message, { ...details, code: body.error });
  const status = `${response.status} ${response.statusText}`.trim();
  return new PlantStoreError(
    `${operationId}: the API answered ${status} without an Error body (${describeBody(response)})`,
    details,
  );
}

function readErrorBody(text: string): ErrorBody | undefined {
  let json: unknown;
  try {
    json = parseJson(text);
  } catch {
    return undefined;
  }
  const result = ErrorBody.safeParse(json);
  return result.success ? result.data : undefined;
}
