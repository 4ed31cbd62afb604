import { createServer, type Server, type ServerOptions } from 'node:http';
import type { Logger } from 'pino';
import { listenOn } from '../listen.ts';
import type { ServiceMetrics } from './metrics.ts';

/** The operator-only listener that serves `GET /metrics`. */
export interface MetricsServer {
  /** e.g. `http://127.0.0.1:9464`; the metrics are at `${url}/metrics`. */
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` on a listener of its own (METRICS_HOST:METRICS_PORT), apart from the
 * API; any other path is 404, any other method 405.
 *
 * @example
 * const address = { host: '127.0.0.1', port: 9464 };
 * const listener = await startMetricsServer(metrics, address, logger, httpServerOptions());
 * await fetch(`${listener.url}/metrics`);
 */
export async function startMetricsServer(
  metrics: Pick<ServiceMetrics, 'exposition'>,
  address: { readonly host: string; readonly port: number },
  logger: Logger,
  /** The HTTP server's options (its timeouts): the same as the API's. */
  serverOptions: ServerOptions,
): Promise<MetricsServer> {
  const server = createServer(serverOptions, (request, response) => {
    response.setHeader('Cache-Control', 'no-store');
    response.setHeader('X-Content-Type-Options', 'nosniff');
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics') {
      response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      response.end('Not found: metrics are at /metrics\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { 'Content-Type': 'text/plain; charset=utf-8', Allow: 'GET, HEAD' });
      response.end('Method not allowed\n');
      return;
    }
    metrics.exposition().then(
      ({ contentType, body }) => {
        response.writeHead(200, { 'Content-Type': contentType });
        response.end(request.method === 'HEAD' ? undefined : body);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'metrics collection failed');
        response.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
        response.end('Metrics collection failed\n');
      },
    );
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  const url = await listenOn(server, address.port, address.host);
  return {
    url,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
