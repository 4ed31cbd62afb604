import type { Server } from 'node:http';
import { ApiError } from './api-error.ts';
import type { ConnectionTracker } from './graceful-shutdown.ts';

/**
 * Answers the requests that Node's HTTP parser rejects (they never reach Koa) with a 400 in
 * the Error shape, then closes the connection. Only parser errors (HPE_*) get an answer; a
 * reset or timed-out socket is just closed. Bytes that are not HTTP pipelined behind a request
 * still being answered wait for that answer (the request may already be stored): the client
 * gets both, in order.
 *
 * @example
 * answerClientErrors(server, trackConnections(server));
 */
export function answerClientErrors(
  server: Server,
  connections: Pick<ConnectionTracker, 'answering'>,
): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || !error.code?.startsWith('HPE_')) {
      socket.destroy();
      return;
    }
    const message =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? 'Request headers are too large'
        : 'Malformed HTTP request';
    const body = JSON.stringify(new ApiError('malformedRequest', message).toBody());
    const refuse = () =>
      socket.end(
        'HTTP/1.1 400 Bad Request\r\n' +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `Connection: close\r\n\r\n${body}`,
      );
    const pending = connections.answering(socket);
    if (pending === undefined || pending.writableFinished) {
      refuse();
      return;
    }
    pending.once('finish', refuse);
    pending.once('close', () => {
      if (!pending.writableFinished) socket.destroy();
    });
  });
}
