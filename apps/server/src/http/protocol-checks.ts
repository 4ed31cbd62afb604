import type { IncomingMessage } from 'node:http';
import { ERROR_MESSAGES } from '@plant-store/schema';
import { ApiError } from '../api-error.ts';

/**
 * Throws for the HTTP/1.1 rules Node leaves to the application: version, `Host` (an unmet
 * `Expect` is answered in `connection/http-server.ts`).
 */
export function checkProtocol(request: IncomingMessage): void {
  if (request.httpVersionMajor !== 1) {
    const message = `HTTP/${request.httpVersion} is not spoken here: send HTTP/1.1 (or HTTP/1.0) requests`;
    throw new ApiError('malformedRequest', message);
  }
  if (request.headers.host === undefined && request.httpVersion === '1.1') {
    throw new ApiError('malformedRequest', ERROR_MESSAGES.malformedRequest.noHost);
  }
}
