import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';
import { ERROR_MESSAGES } from '@plant-store/schema';
import { ApiError } from '../http/api-error.ts';
import { rawErrorAnswer } from '../http/error-responder.ts';
import type { Connections } from './fair-share.ts';
import { answerAndLinger } from './linger.ts';

/**
 * Answers what Node's parser rejects in the Error shape, then lingers: broken framing (400),
 * a body late while its handler waits (408), `CONNECT` (405). Else the socket just closes.
 * @example
 * answerParserErrors(server, trackConnections(server), 5_000); // see http-server.ts
 */
export function answerParserErrors(
  server: Server,
  connections: Pick<Connections, 'answering'>,
  lingerMs: number,
): void {
  // A parser that failed fails again on every later chunk: one answer per connection.
  const answered = new WeakSet<Socket>();
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (answered.has(socket)) return;
    const timedOut = error.code === 'ERR_HTTP_REQUEST_TIMEOUT';
    const last = [...connections.answering(socket)].at(-1);
    // The request whose body broke or stalled while its handler waits for it.
    const waiting = last !== undefined && !last.req.complete && !last.headersSent;
    if (!socket.writable || !(waiting || error.code?.startsWith('HPE_'))) {
      socket.destroy();
      return;
    }
    answered.add(socket);
    const refusal = timedOut
      ? new ApiError('requestTimeout', ERROR_MESSAGES.requestTimeout(server.requestTimeout / 1000))
      : new ApiError(
          'malformedRequest',
          error.code === 'HPE_HEADER_OVERFLOW'
            ? ERROR_MESSAGES.malformedRequest.headersTooLarge
            : ERROR_MESSAGES.malformedRequest.unparsable,
        );
    const answer = () =>
      answerAndLinger(socket, rawErrorAnswer(refusal, last?.getHeaders()), lingerMs);
    if (last === undefined || waiting) {
      // Its handler, still reading the body, is released once the connection is gone.
      if (last) socket.once('close', () => last.req.destroy());
      answer();
      return;
    }
    // After the answer to the request before the garbage, in order.
    last.once('finish', answer);
    last.once('close', () => {
      if (!last.writableFinished) socket.destroy();
    });
  });
  server.on('connect', (request: IncomingMessage, socket: Socket) => {
    const refusal = new ApiError(
      'methodNotAllowed',
      `CONNECT is not allowed: this server is not a proxy (asked for ${request.url ?? ''})`,
    );
    socket.on('error', () => socket.destroy());
    socket.end(rawErrorAnswer(refusal));
  });
}
