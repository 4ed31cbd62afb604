import { createServer } from 'node:http';
import type { Logger } from 'pino';
import { listenOn } from '../listen.ts';
import type { ServiceMetrics } from './metrics.ts';

/**
 * Serves `GET /metrics` on a listener of its own, apart from the API.
 *
 * @example
 * const listener = await startMetricsServer(metrics, { host: '127.0.0.1', port: 9464 }, logger);
 */
export async function startMetricsServer(
  metrics: Pick<ServiceMetrics, 'exposition'>,
  address: { readonly host: string; readonly port: number },
  logger: Logger,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    response.setHeader('Cache-Control', 'no-store');
    response.setHeader('X-Content-Type-Options', 'nosniff');
    const plain = (status: number, text: string, headers = {}) => {
      response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...headers });
      response.end(text);
    };
    if ((request.url ?? '').split('?')[0] !== '/metrics') {
      return plain(404, 'Not found: metrics are at /metrics\n');
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return plain(405, 'Method not allowed\n', { Allow: 'GET, HEAD' });
    }
    metrics.exposition().then(
      ({ contentType, body }) => {
        response.writeHead(200, { 'Content-Type': contentType });
        response.end(request.method === 'HEAD' ? undefined : body);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'metrics collection failed');
        plain(500, 'Metrics collection failed\n');
      },
    );
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  const url = await listenOn(server, address.port, address.host);
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
