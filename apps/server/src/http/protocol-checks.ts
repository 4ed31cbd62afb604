import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { ERROR_MESSAGES } from '@plant-store/schema';
import { ApiError } from './api-error.ts';

/**
 * The most header fields a request may have. Node's own limit (`maxHeadersCount`, 2000) drops
 * the fields past it without a word, so a request whose `Content-Length` came after them was
 * answered as if it had no body: the server lets one more through and refuses the request.
 */
export const MAX_HEADER_FIELDS = 2000;

/**
 * Serves requests that carry an `Expect` header as any other (Node would answer an unknown
 * expectation 417 without an Error body: `checkProtocol` does that), and sends
 * `100 Continue` only when the request's body is about to be read: after the bearer check,
 * the rate limits, the content type and the announced size. A request refused before (401,
 * 413 by `Content-Length`, 415, 429) gets its final answer with no `100` before it, so the
 * client never uploads a body that would be thrown away.
 *
 * @example
 * answerExpectations(server);
 */
export function answerExpectations(server: Server): void {
  const serve = (request: IncomingMessage, response: ServerResponse) => {
    server.emit('request', request, response);
  };
  server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    // A stream emits 'resume' when a reader starts taking its data (also when Node discards
    // the body of a request already answered: then no `100` is due).
    request.once('resume', () => {
      if (!response.headersSent) response.writeContinue();
    });
    serve(request, response);
  });
  server.on('checkExpectation', serve);
}

/** Node's test for an expectation it answers with `100 Continue` (`_http_server.js`). */
const CONTINUE_EXPECTATION = /(?:^|\W)100-continue(?:$|\W)/i;

/**
 * Throws the ApiError for a request that breaks HTTP/1.1 rules Node leaves (or is told to leave,
 * see `server.ts`) to the application, so they are answered in the Error shape like every other
 * refusal: a request line with a version other than HTTP/1.x (`HTTP/2.0`, which Node's parser
 * would serve as HTTP/1.1) → 400 40004, an HTTP/1.1 request without `Host` (RFC 9112 §3.2) →
 * 400 40004, more than
 * {@link MAX_HEADER_FIELDS} header fields → 400 40004, an `Expect` other than `100-continue`
 * (RFC 9110 §10.1.1) → 417 41701. The 40004s close the connection, as a parser error does.
 *
 * @example
 * checkProtocol(ctx.req); // throws, or returns when the request may be served
 */
export function checkProtocol(request: IncomingMessage): void {
  const headers = request.headers;
  if (request.httpVersionMajor !== 1) {
    throw malformed(
      `HTTP/${request.httpVersion} is not spoken here: send HTTP/1.1 (or HTTP/1.0) requests`,
    );
  }
  if (headers.host === undefined && request.httpVersion === '1.1') {
    throw malformed(ERROR_MESSAGES.malformedRequest.noHost);
  }
  if (request.rawHeaders.length > 2 * MAX_HEADER_FIELDS) {
    throw malformed(ERROR_MESSAGES.malformedRequest.tooManyHeaders(MAX_HEADER_FIELDS));
  }
  const expect = headers.expect;
  if (expect !== undefined && !CONTINUE_EXPECTATION.test(expect)) {
    throw new ApiError('expectationFailed', ERROR_MESSAGES.expectationFailed);
  }
}

function malformed(message: string): ApiError {
  return new ApiError('malformedRequest', message);
}
