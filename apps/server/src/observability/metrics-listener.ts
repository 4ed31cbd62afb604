import { createServer, type RequestListener } from 'node:http';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { listenOn } from '../listen.ts';

/** Answers `GET /metrics` (and HEAD) from `registry`; 404 elsewhere, 405 for other methods. */
export function serveMetrics(registry: Registry, logger: Logger): RequestListener {
  return (request, response) => {
    response.setHeader('Cache-Control', 'no-store');
    response.setHeader('X-Content-Type-Options', 'nosniff');
    const plain = (status: number, text: string) => {
      response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' }).end(text);
    };
    if ((request.url ?? '').split('?')[0] !== '/metrics') {
      return plain(404, 'Not found: metrics are at /metrics\n');
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('Allow', 'GET, HEAD');
      return plain(405, 'Method not allowed\n');
    }
    registry.metrics().then(
      (body) => {
        response.writeHead(200, { 'Content-Type': registry.contentType });
        response.end(request.method === 'HEAD' ? undefined : body);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'metrics collection failed');
        plain(500, 'Metrics collection failed\n');
      },
    );
  };
}

/**
 * Serves `serveMetrics` on a listener of its own, apart from the API.
 *
 * @example
 * const listener = await startMetricsServer(metrics.registry, { host: '127.0.0.1', port: 9464 }, logger);
 */
export async function startMetricsServer(
  registry: Registry,
  address: { readonly host: string; readonly port: number },
  logger: Logger,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(serveMetrics(registry, logger));
  const url = await listenOn(server, address.port, address.host);
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections(); // a scrape under way too: nothing waits for it
    });
  return { url, close };
}
