import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_MESSAGES } from '@plant-store/schema';
import { ApiError } from './api-error.ts';
import type { Connections } from './connection-tracker.ts';

/**
 * Answers in the Error shape, then closes the connection, what Node's HTTP parser rejects: a
 * body that breaks the framing while its handler waits for it (400 40004, on the request's own
 * response), a body not complete within the request timeout (408 40801, the same way), any
 * other parser error (400 40004, after the answer to a request still being served, in order),
 * and `CONNECT` (405 40501). A reset socket, or headers not complete in time, is just closed.
 *
 * @example
 * answerClientErrors(server, trackConnections(server)); // see http-server.ts
 */
export function answerClientErrors(
  server: Server,
  connections: Pick<Connections, 'answering'>,
): void {
  // A parser that failed fails again on every later chunk: one answer per connection.
  const answered = new WeakSet<Duplex>();
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (answered.has(socket)) return;
    const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    if (!socket.writable || !(timedOut || error.code?.startsWith('HPE_'))) {
      socket.destroy();
      return;
    }
    const pending = connections.answering(socket);
    if (pending !== undefined && !pending.req.complete && !pending.headersSent) {
      answered.add(socket);
      answerWaitingRequest(pending, socket, timedOut ? timeoutError(server) : parserError(error));
      return;
    }
    if (timedOut) {
      socket.destroy();
      return;
    }
    answered.add(socket);
    // Unless the answer before ended the connection (a refusal sent before its body arrived,
    // whose connection is lingering: see `lingering-close.ts`).
    const refuse = () => {
      if (socket.writable) socket.end(rawAnswer('400 Bad Request', parserError(error)));
    };
    if (pending === undefined || pending.writableFinished) {
      refuse();
      return;
    }
    pending.once('finish', refuse);
    pending.once('close', () => {
      if (!pending.writableFinished) socket.destroy();
    });
  });
  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    const refusal = new ApiError(
      'methodNotAllowed',
      `CONNECT is not allowed: this server is not a proxy (asked for ${request.url ?? ''})`,
    );
    socket.on('error', () => socket.destroy());
    socket.end(rawAnswer('405 Method Not Allowed', refusal));
  });
}

/** An Error answer written straight to a socket that Node's HTTP server no longer serves. */
function rawAnswer(statusLine: string, error: ApiError): string {
  const body = JSON.stringify(error.toBody());
  return (
    `HTTP/1.1 ${statusLine}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

/**
 * Answers, on its own response (which carries its request id), a request whose body will
 * never be complete, and closes the connection after it (lingering: the client may still be
 * sending). Its handler, still reading the body, is released when the connection is gone.
 */
function answerWaitingRequest(response: ServerResponse, socket: Duplex, error: ApiError): void {
  const body = JSON.stringify(error.toBody());
  response.statusCode = error.status;
  response.setHeader('Content-Type', 'application/json; charset=utf-8');
  response.setHeader('Content-Length', Buffer.byteLength(body));
  response.setHeader('Connection', 'close');
  response.end(body);
  socket.once('close', () => response.req.destroy());
}

function parserError(error: NodeJS.ErrnoException): ApiError {
  return new ApiError(
    'malformedRequest',
    error.code === 'HPE_HEADER_OVERFLOW'
      ? ERROR_MESSAGES.malformedRequest.headersTooLarge
      : ERROR_MESSAGES.malformedRequest.unparsable,
  );
}

function timeoutError(server: Server): ApiError {
  return new ApiError(
    'requestTimeout',
    ERROR_MESSAGES.requestTimeout(server.requestTimeout / 1000),
  );
}
