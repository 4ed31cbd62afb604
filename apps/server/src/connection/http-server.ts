import { createServer, type RequestListener, type Server, type ServerOptions } from 'node:http';
import { rawRefusalOf } from '../http/error-responder.ts';
import { type Drain, type DrainOptions, drainOnShutdown } from './drain.ts';
import { type ConnectionCap, trackConnections } from './fair-share.ts';
import { answerAndLinger } from './linger.ts';
import { answerParserErrors } from './parser-errors.ts';

/** The HTTP server's timeouts in ms; Node's own let one client hold a connection for minutes. */
export interface HttpTimeouts {
  /** Headers complete this long after the request's first byte (slowloris). */
  readonly headersTimeoutMs: number;
  /** The whole request, body included, this long after its first byte. */
  readonly requestTimeoutMs: number;
  /** No progress either way this long closes a connection (nginx's `send_timeout`). */
  readonly progressTimeoutMs: number;
  /** Idle keep-alive connections close after this long: above a balancer's (60 s). */
  readonly keepAliveTimeoutMs: number;
  /** How often Node checks the headers and request timeouts. */
  readonly connectionsCheckingIntervalMs: number;
  /** How long the rest of a refused body is read and dropped (`linger.ts`). */
  readonly lingerMs: number;
}

export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = {
  headersTimeoutMs: 5_000,
  requestTimeoutMs: 30_000,
  progressTimeoutMs: 30_000,
  keepAliveTimeoutMs: 65_000,
  connectionsCheckingIntervalMs: 1_000,
  lingerMs: 5_000,
};

/**
 * The `http.createServer` options for `timeouts`, defaults for any not given.
 *
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

export interface HttpServerOptions {
  readonly timeouts?: Partial<HttpTimeouts>;
  readonly cap?: ConnectionCap;
  readonly drain?: DrainOptions;
}

/**
 * The one place the API's `node:http` server is made; its listeners, in the order Node calls
 * them: 1. `connection`: the per-address share and the cap (`fair-share.ts`); 2. `clientError`,
 * `connect`: the parser's refusals in the Error shape (`parser-errors.ts`); 3. `checkContinue`:
 * the `100` sent only once the body is read; 4. `request`: the pipeline bound, the drain
 * (`drain.ts`), the application, then a refusal made before the body, written raw and lingered
 * (`linger.ts`).
 *
 * @example
 * const { server, drain } = createHttpServer(app.callback(), { cap: { max: 900 } });
 */
export function createHttpServer(
  handle: RequestListener,
  options: HttpServerOptions = {},
): { server: Server; drain: Drain } {
  const timeouts = { ...DEFAULT_HTTP_TIMEOUTS, ...options.timeouts };
  // Node answers a request without Host, and drops header fields past its count, with no Error
  // body: the app refuses both (`http/protocol-checks.ts`).
  const server = createServer({ ...httpServerOptions(timeouts), requireHostHeader: false });
  server.maxHeadersCount = 0;
  server.timeout = timeouts.progressTimeoutMs;

  const connections = trackConnections(server, options.cap); // 1, and 4's pipeline
  answerParserErrors(server, connections, timeouts.lingerMs); // 2
  // 3. A request stream emits 'resume' when a reader starts taking its body.
  server.on('checkContinue', (request, response) => {
    request.once('resume', () => {
      if (!response.headersSent) response.writeContinue();
    });
    server.emit('request', request, response);
  });
  server.on('checkExpectation', (request, response) => server.emit('request', request, response));
  const drain = drainOnShutdown(server, connections, options.drain);
  server.on('request', (request, response) => {
    // 4. Nothing more on a connection closed for pipelining too deep. Koa's handler resolves
    // once it has answered, or left a refusal to be sent raw.
    if (request.socket.destroyed || drain.answers(request, response)) return;
    const handled: unknown = handle(request, response);
    void Promise.resolve(handled).then(() => {
      const refusal = rawRefusalOf(response);
      if (refusal === undefined) return;
      answerAndLinger(
        request.socket,
        refusal,
        timeouts.lingerMs,
        request.headers['content-length'],
      );
    });
  });
  return { server, drain };
}
