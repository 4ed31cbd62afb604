import { createServer, type RequestListener, type Server, type ServerOptions } from 'node:http';
import { type Drain, type DrainOptions, drainOnShutdown } from './drain.ts';
import { type ConnectionCap, trackConnections } from './fair-share.ts';
import { answerParserErrors } from './parser-errors.ts';

/** The HTTP server's timeouts in ms; Node's own let one client hold a connection for minutes. */
export const DEFAULT_HTTP_TIMEOUTS = {
  headersTimeoutMs: 5_000, // headers complete after the request's first byte (slowloris)
  requestTimeoutMs: 30_000, // the whole request, body included
  progressTimeoutMs: 30_000, // no progress either way closes it (nginx's `send_timeout`)
  keepAliveTimeoutMs: 65_000, // above a balancer's idle timeout (60 s)
  connectionsCheckingIntervalMs: 1_000,
  lingerMs: 5_000, // how long the rest of a refused body is read and dropped (linger.ts)
};
export type HttpTimeouts = Readonly<Record<keyof typeof DEFAULT_HTTP_TIMEOUTS, number>>;

/**
 * The `http.createServer` options for `timeouts`, defaults for any not given.
 * @example
 * const server = http.createServer(httpServerOptions({ keepAliveTimeoutMs: 120_000 }), handler);
 */
export function httpServerOptions(timeouts: Partial<HttpTimeouts> = {}): ServerOptions {
  const merged = { ...DEFAULT_HTTP_TIMEOUTS, ...timeouts };
  return {
    headersTimeout: merged.headersTimeoutMs,
    requestTimeout: merged.requestTimeoutMs,
    keepAliveTimeout: merged.keepAliveTimeoutMs,
    connectionsCheckingInterval: merged.connectionsCheckingIntervalMs,
  };
}

interface HttpServerOptions {
  readonly timeouts?: Partial<HttpTimeouts>;
  readonly cap?: ConnectionCap;
  readonly drain?: DrainOptions;
}

/**
 * The one place the API's `node:http` server is made; its listeners in the order Node calls them:
 * 1. `connection` (fair-share.ts); 2. `clientError`, `connect` (parser-errors.ts); 3. `checkContinue`;
 * 4. `request`: pipeline bound, drain (drain.ts), the app, then a raw refusal lingered (linger.ts).
 * @example
 * const { server, drain } = createHttpServer(app.callback(), { cap: { max: 900 } });
 */
export function createHttpServer(
  handle: RequestListener,
  options: HttpServerOptions = {},
): { server: Server; drain: Drain } {
  const timeouts = { ...DEFAULT_HTTP_TIMEOUTS, ...options.timeouts };
  // Node answers a missing Host, and drops header fields past its count, with no Error body:
  // the app refuses both (`http/protocol-checks.ts`).
  const server = createServer({ ...httpServerOptions(timeouts), requireHostHeader: false });
  server.maxHeadersCount = 0;
  server.timeout = timeouts.progressTimeoutMs;

  const connections = trackConnections(server, options.cap); // 1, and 4's pipeline bound
  answerParserErrors(server, connections, timeouts.lingerMs); // 2
  // 3. The `100` only once a reader starts taking the body (the request emits 'resume').
  server.on('checkContinue', (request, response) => {
    request.once('resume', () => response.headersSent || response.writeContinue());
    server.emit('request', request, response);
  });
  server.on('checkExpectation', (request, response) => server.emit('request', request, response));
  const drain = drainOnShutdown(server, connections, options.drain);
  server.on('request', (request, response) => {
    // 4. Nothing more on a connection closed for pipelining too deep.
    if (request.socket.destroyed || drain.answers(request, response)) return;
    handle(request, response);
  });
  return { server, drain };
}
