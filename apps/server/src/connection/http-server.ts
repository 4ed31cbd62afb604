import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_MESSAGES } from '@plant-store/schema';
import { ApiError } from '../api-error.ts';
import { rawErrorAnswer } from '../http/error-responder.ts';
import { markUnmetExpectation } from '../http/protocol-checks.ts';

/**
 * The HTTP server's timeouts in ms, by Node's own names (`http.createServer` options, and
 * `timeout` for `server.timeout`). Node's defaults let one client hold a connection for
 * minutes; the edge (slow clients, bodies, shares per address) is the reverse proxy in front
 * (docs/deployment.md).
 */
export const DEFAULT_HTTP_TIMEOUTS = {
  headersTimeout: 5_000, // headers complete after the request's first byte (slowloris)
  requestTimeout: 30_000, // the whole request, body included
  timeout: 30_000, // `server.timeout`: no progress either way closes the socket
  keepAliveTimeout: 65_000, // above a balancer's idle timeout (60 s)
  connectionsCheckingInterval: 1_000, // how often Node checks the first two
};
export type HttpTimeouts = Readonly<Record<keyof typeof DEFAULT_HTTP_TIMEOUTS, number>>;

/**
 * The one place the API's `node:http` server is made, on Node's public API only: its timeouts,
 * its cap (`server.maxConnections`, MAX_CONNECTIONS; 0: none; `onDrop` on the first connection
 * Node closes over it), and a `clientError` hook (Node's documented one) that answers a request
 * Node cannot parse in the Error shape and closes. Koa writes every other answer.
 */
export function createHttpServer(
  handle: RequestListener,
  options: { timeouts: Partial<HttpTimeouts>; maxConnections: number; onDrop: () => void },
): Server {
  const { timeout, ...timeouts } = { ...DEFAULT_HTTP_TIMEOUTS, ...options.timeouts };
  // Node would answer a missing Host with no Error body: the app refuses it
  // (`http/protocol-checks.ts`). No cap on the count of header fields (Node would drop those
  // past it): `maxHeaderSize` bounds them all.
  const server = createServer({ ...timeouts, requireHostHeader: false }, handle);
  server.timeout = timeout;
  server.maxHeadersCount = 0;
  if (options.maxConnections) server.maxConnections = options.maxConnections;
  server.once('drop', options.onDrop);
  // The `100` only once a reader starts taking the body (the request emits 'resume'), so a
  // refusal (401, 413, 415) comes before the client sends it.
  server.on('checkContinue', (request, response) => {
    request.once('resume', () => response.headersSent || response.writeContinue());
    server.emit('request', request, response);
  });
  // Any other Expect (Node's own test decides): Koa answers it, a 417 in the Error shape.
  server.on('checkExpectation', (request, response) => {
    markUnmetExpectation(request);
    server.emit('request', request, response);
  });

  // The answer under way on each connection, if any: a parse error answers the request whose
  // body broke or stalled, never into another request's answer.
  const answering = new WeakMap<Duplex, ServerResponse>();
  server.on('request', (request, response) => answering.set(request.socket, response));
  const answered = new WeakSet<Duplex>(); // a failed parser fails again on every later chunk
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (answered.has(socket)) return;
    const current = answering.get(socket);
    const waiting = current !== undefined && !current.headersSent && !current.req.complete;
    // Else (a reset, a slowloris cut by `headersTimeout`) the socket just closes.
    if (!socket.writable || !(waiting || error.code?.startsWith('HPE_'))) {
      return void socket.destroy();
    }
    answered.add(socket);
    socket.on('error', () => socket.destroy());
    const answer = () =>
      socket.end(rawErrorAnswer(clientErrorOf(error, server), waiting ? current.getHeaders() : {}));
    // After the answer to the request before the garbage, in order.
    if (waiting || current === undefined || current.writableFinished) return answer();
    current.once('finish', answer);
    current.once('close', () => current.writableFinished || socket.destroy());
  });
  server.on('connect', (request, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    const target = request.url ?? '';
    const message = `CONNECT is not allowed: this server is not a proxy (asked for ${target})`;
    socket.end(rawErrorAnswer(new ApiError('methodNotAllowed', message)));
  });
  return server;
}

/** 408 for a request that did not arrive within `requestTimeout`, else 400. */
function clientErrorOf(error: NodeJS.ErrnoException, server: Server): ApiError {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new ApiError(
      'requestTimeout',
      ERROR_MESSAGES.requestTimeout(server.requestTimeout / 1000),
    );
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const { headersTooLarge, unparsable } = ERROR_MESSAGES.malformedRequest;
  return new ApiError('malformedRequest', tooLarge ? headersTooLarge : unparsable);
}
