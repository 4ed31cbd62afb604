import type { IncomingMessage } from 'node:http';
import { ERROR_MESSAGES } from '@plant-store/schema';
import { ApiError } from '../api-error.ts';

/** Requests whose `Expect` Node found unmet (its `checkExpectation` event). */
const unmetExpectations = new WeakSet<IncomingMessage>();

/** Called from Node's `checkExpectation` event: the app then answers the request 417. */
export function markUnmetExpectation(request: IncomingMessage): void {
  unmetExpectations.add(request);
}

/**
 * Throws for the HTTP/1.1 rules Node leaves to the application: version, `Host`, and an
 * `Expect` other than 100-continue (Node's own test: `markUnmetExpectation`).
 */
export function checkProtocol(request: IncomingMessage): void {
  if (unmetExpectations.has(request)) {
    throw new ApiError('expectationFailed', ERROR_MESSAGES.expectationFailed);
  }
  if (request.httpVersionMajor !== 1) {
    const message = `HTTP/${request.httpVersion} is not spoken here: send HTTP/1.1 (or HTTP/1.0) requests`;
    throw new ApiError('malformedRequest', message);
  }
  if (request.headers.host === undefined && request.httpVersion === '1.1') {
    throw new ApiError('malformedRequest', ERROR_MESSAGES.malformedRequest.noHost);
  }
}
