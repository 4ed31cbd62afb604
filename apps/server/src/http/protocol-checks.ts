import type { IncomingMessage } from 'node:http';
import { ERROR_MESSAGES } from '@plant-store/schema';
import { ApiError } from './api-error.ts';

/** Node's test for an expectation it answers with `100 Continue` (`_http_server.js`). */
const CONTINUE_EXPECTATION = /(?:^|\W)100-continue(?:$|\W)/i;

/** Throws for the HTTP/1.1 rules Node leaves to the application: version, `Host`, `Expect`. */
export function checkProtocol(request: IncomingMessage): void {
  const headers = request.headers;
  if (request.httpVersionMajor !== 1) {
    const message = `HTTP/${request.httpVersion} is not spoken here: send HTTP/1.1 (or HTTP/1.0) requests`;
    throw new ApiError('malformedRequest', message);
  }
  if (headers.host === undefined && request.httpVersion === '1.1') {
    throw new ApiError('malformedRequest', ERROR_MESSAGES.malformedRequest.noHost);
  }
  const expect = headers.expect;
  if (expect !== undefined && !CONTINUE_EXPECTATION.test(expect)) {
    throw new ApiError('expectationFailed', ERROR_MESSAGES.expectationFailed);
  }
}
