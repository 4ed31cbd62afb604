import { createServer, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { contract } from '@plant-store/schema';
import { answerClientErrors } from './client-error.ts';
import { type ConnectionCap, trackConnections } from './connection-tracker.ts';
import { type DrainOptions, drainOnShutdown } from './graceful-shutdown.ts';
import { lingerOnClose } from './lingering-close.ts';
import { answerExpectations } from './protocol-checks.ts';
import { DEFAULT_HTTP_TIMEOUTS, type HttpTimeouts, httpServerOptions } from './timeouts.ts';

const PROBE_PATHS = new Set<string>([contract.getHealth.path, contract.getReadiness.path]);

/** How the API's HTTP server is built. */
export interface HttpServerOptions {
  readonly timeouts?: Partial<HttpTimeouts>;
  readonly cap?: ConnectionCap;
  readonly drain?: DrainOptions;
}

/** The open connections of the API's HTTP server, for answering in order and shutting down. */
export interface ConnectionTracker {
  /** The response being written on `socket` (HTTP/1.1 answers one request at a time). */
  answering(socket: Duplex): ServerResponse | undefined;
  /** Serves a connection accepted by another process (a cluster worker's). */
  inject(socket: Socket): void;
  /** Drains (see `graceful-shutdown.ts`); resolves once every connection is closed. */
  shutdown(): Promise<void>;
}

/**
 * The one place the API's `node:http` server is made. Its listeners are registered here, in
 * this order, each in a module named for it (Node calls a event's listeners in the order they
 * were added):
 * 1. connection tracking and the cap (`connection-tracker.ts`): first, so that every later
 *    listener sees the connection counted and the response being written on it;
 * 2. parser errors (`client-error.ts`): answers in the Error shape what Node's parser refuses;
 * 3. lingering close (`lingering-close.ts`): a refusal sent before the body was read reaches
 *    the client instead of a reset;
 * 4. `Expect: 100-continue` (`protocol-checks.ts`): such requests are served as any other, the
 *    `100` sent when the body is read;
 * 5. the request itself (below): probes close their connection, the drain answers `/readyz`
 *    while it runs (`graceful-shutdown.ts`), then the application (`handle`).
 *
 * @example
 * const { server, connections } = createHttpServer(app.callback(), { cap: { max: 900 } });
 * await listenOn(server, 3000, '127.0.0.1');
 * process.once('SIGTERM', () => connections.shutdown());
 */
export function createHttpServer(
  handle: RequestListener,
  options: HttpServerOptions = {},
): { server: Server; connections: ConnectionTracker } {
  // Node's own answers to a request without Host (400), with an Expect other than 100-continue
  // (417) and with too many header fields (it drops the extra ones) have no Error body, or do
  // not happen at all: the app answers them (see `protocol-checks.ts`).
  const server = createServer({ ...httpServerOptions(options.timeouts), requireHostHeader: false });
  // No count limit in Node itself (0): Node 20 drops the fields past its limit without a word
  // and Node 24 refuses them as a header overflow; with none, every Node hands all the fields
  // (at most the 16 KiB header size allows) to `checkProtocol`, which refuses more than
  // MAX_HEADER_FIELDS with a message that says so.
  server.maxHeadersCount = 0;

  const connections = trackConnections(server, options.cap); // 1
  answerClientErrors(server, connections); // 2
  lingerOnClose(server, connections, options.timeouts?.lingerMs ?? DEFAULT_HTTP_TIMEOUTS.lingerMs); // 3
  answerExpectations(server); // 4
  const drain = drainOnShutdown(server, connections, options.drain);
  server.on('request', (request, response) => {
    // 5. Probes are answered with `Connection: close`: a caller without a credential cannot
    // keep connections open with them.
    if (PROBE_PATHS.has(request.url ?? '')) response.setHeader('Connection', 'close');
    if (drain.answers(request, response)) return;
    handle(request, response);
  });
  return {
    server,
    connections: {
      answering: connections.answering,
      inject: connections.inject,
      shutdown: drain.shutdown,
    },
  };
}
