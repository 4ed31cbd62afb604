import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { createApp } from './app.ts';
import { ManagedTokenVerifier } from './auth/managed-token-verifier.ts';
import { openTokenStore } from './auth/open-token-store.ts';
import { TokenRegistry } from './auth/token-registry.ts';
import type { Config } from './config.ts';
import { ApiError } from './http/api-error.ts';
import { type HttpTimeouts, httpServerOptions } from './http/timeouts.ts';
import { rateLimitBackendFor } from './limits/backend-for.ts';
import { RateLimits } from './limits/rate-limits.ts';
import type { MetricsServer } from './observability/metrics-listener.ts';
import { type OpenPostgresOptions, type OpenStoreOptions, openStore } from './store/open-store.ts';
import type { PlantStore } from './store/plant-store.ts';

/** How long a shutdown waits for in-flight requests before closing their connections. */
const SHUTDOWN_GRACE_MS = 10_000;
/** While shutting down, how often connections that have become idle are closed. */
const IDLE_SWEEP_MS = 100;

export interface RunningServer {
  /** Base URL, e.g. `http://127.0.0.1:3000`. */
  readonly url: string;
  readonly server: Server;
  readonly store: PlantStore;
  /** Base URL of the metrics listener (`${metricsUrl}/metrics`), when one was configured. */
  readonly metricsUrl?: string;
  /** Stops accepting, lets in-flight requests finish, then closes the store. */
  close(): Promise<void>;
}

type ServerConfig = Pick<
  Config,
  'port' | 'host' | 'databaseUrl' | 'tokens' | 'bodyLimitBytes' | 'durability'
> &
  Partial<Pick<Config, 'postgres'>> &
  Partial<Pick<Config, 'metrics' | 'rateLimit' | 'trustProxyHops' | 'corsOrigins'>> & {
    /** Overrides of the HTTP timeouts (`keepAliveTimeoutMs` comes from the config). */
    readonly timeouts?: Partial<HttpTimeouts>;
    readonly keepAliveTimeoutMs?: number;
  };

/**
 * How the service opens its stores (the benchmark's floor opens its store the same way):
 * durability from the config; on SQLite, WAL checkpoints on a worker thread rather than inside
 * a commit on the event loop; on PostgreSQL, the pool settings (PG_*) that the plant store,
 * the managed tokens and the rate limits each build their own pool from.
 *
 * @example
 * const store = await openStore(config.databaseUrl, serviceStoreOptions(config, logger));
 */
export function serviceStoreOptions(
  config: Pick<Config, 'durability'> & Partial<Pick<Config, 'postgres'>>,
  logger: Logger,
): OpenStoreOptions & { readonly postgres: OpenPostgresOptions } {
  return {
    durability: config.durability,
    sqlite: {
      checkpoints: 'background',
      onCheckpointFailure: (error) =>
        logger.error({ err: error }, 'WAL checkpoint worker failed; checkpoints run inline'),
    },
    postgres: {
      ...config.postgres,
      onError: (error: Error, context: string) => logger.warn({ err: error }, context),
    },
  };
}

/**
 * Opens the store (running its migrations) and serves the API on `config.host:config.port`.
 *
 * @example
 * const running = await startServer(loadConfig(), logger);
 * console.log(running.url);
 * await running.close();
 */
export async function startServer(config: ServerConfig, logger: Logger): Promise<RunningServer> {
  // Metrics are collected (and prom-client loaded) only when something serves them (METRICS_PORT).
  const metricsModules = config.metrics ? await loadMetricsModules() : undefined;
  const metrics = metricsModules ? new metricsModules.ServiceMetrics() : undefined;
  const storeOptions = serviceStoreOptions(config, logger);
  const { postgres } = storeOptions;
  const store = await openStore(config.databaseUrl, {
    ...storeOptions,
    ...(metrics ? { observer: metrics.storeObserver() } : {}),
  });
  // The managed tokens (plant-store tokens …) live in the same database as the plants.
  const tokenStore = await openTokenStore(config.databaseUrl, postgres).catch(
    async (error: unknown) => {
      await store.close();
      throw error;
    },
  );
  let rateLimits: RateLimits | undefined;
  /** A start that fails once the stores are open releases what it opened, then fails. */
  const abandon = async (error: unknown): Promise<never> => {
    await Promise.allSettled([rateLimits?.close(), store.close(), tokenStore.close()]);
    throw error;
  };
  try {
    rateLimits = config.rateLimit
      ? await RateLimits.create(
          config.rateLimit,
          await rateLimitBackendFor(config.databaseUrl, postgres),
          {
            ...(metrics ? { onLimited: (limit) => metrics.rateLimited.inc({ limit }) } : {}),
          },
        )
      : undefined;
  } catch (error) {
    return abandon(error);
  }
  const app = createApp({
    store: metrics && metricsModules ? metricsModules.measureStore(store, metrics) : store,
    tokens: TokenRegistry.fromTokens(config.tokens, new ManagedTokenVerifier(tokenStore)),
    bodyLimitBytes: config.bodyLimitBytes,
    logger,
    ...(metrics ? { metrics } : {}),
    ...(rateLimits ? { rateLimits } : {}),
    ...(config.corsOrigins ? { corsOrigins: config.corsOrigins } : {}),
    ...(config.trustProxyHops ? { trustProxyHops: config.trustProxyHops } : {}),
  });
  const server = createServer(
    httpServerOptions({
      ...(config.keepAliveTimeoutMs ? { keepAliveTimeoutMs: config.keepAliveTimeoutMs } : {}),
      ...config.timeouts,
    }),
    app.callback(),
  );
  // The open connections, and the response being written on each (HTTP/1.1 answers one request
  // at a time): for a shutdown to close them, and for `clientError` to answer in order.
  // Keep-alive connections outlive a request by KEEP_ALIVE_TIMEOUT_SECONDS (65 s): on shutdown,
  // the responses still in progress (and any request that slips in) say `Connection: close`,
  // so their connections end with them instead of holding the close until the grace period.
  // The set holds connections (added and removed once per connection), not responses: with a
  // long-lived Set that every response was added to and removed from, whole requests survived
  // young-generation collections in the bundled server (measured with --trace-gc at 3000 req/s:
  // ~1.4 MB promoted per scavenge, 3 mark-compacts per 6 s instead of 1, +20 µs CPU/request).
  const connections = new Set<Duplex>();
  const answering = new WeakMap<Duplex, ServerResponse>();
  let stopping = false;
  server.on('connection', (socket: Duplex) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    answering.set(socket, response);
    if (stopping) response.setHeader('Connection', 'close');
    response.once('close', () => {
      if (answering.get(socket) === response) answering.delete(socket);
    });
  });
  // A request the HTTP parser rejects never reaches Koa: answer it in the Error shape too.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    // Only parser errors (HPE_*) get an answer; a reset or timed-out socket is just closed.
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
    // Pipelined bytes that are not HTTP behind a request still being answered: that request
    // gets its own answer first (it may already be stored), then the 400, in order.
    const pending = answering.get(socket);
    if (pending === undefined || pending.writableFinished) {
      refuse();
      return;
    }
    pending.once('finish', refuse);
    pending.once('close', () => {
      if (!pending.writableFinished) socket.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch(abandon); // nothing listens (the port is taken, say)
  const { port, address, family } = server.address() as AddressInfo;
  const host = family === 'IPv6' ? `[${address}]` : address;
  const url = `http://${host}:${port}`;
  let metricsServer: MetricsServer | undefined;
  if (metrics && metricsModules && config.metrics) {
    metricsServer = await metricsModules
      .startMetricsServer(metrics, config.metrics, logger)
      .catch((error: unknown) => {
        server.close();
        return abandon(error);
      });
  }

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      stopping = true;
      for (const socket of connections) {
        const response = answering.get(socket);
        if (response === undefined) continue;
        if (!response.headersSent) response.setHeader('Connection', 'close');
        else response.once('finish', () => server.closeIdleConnections());
      }
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Connections that go idle later (a response that was already being written, a request
      // body still being read and discarded after an early error) are closed as they do.
      const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
      const force = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      await stopped;
      clearInterval(sweep);
      clearTimeout(force);
      await metricsServer?.close();
      await rateLimits?.close();
      await store.close();
      await tokenStore.close();
    })();
    return closing;
  };
  return {
    url,
    server,
    store,
    ...(metricsServer ? { metricsUrl: metricsServer.url } : {}),
    close,
  };
}

async function loadMetricsModules() {
  const [{ ServiceMetrics }, { measureStore }, { startMetricsServer }] = await Promise.all([
    import('./observability/metrics.ts'),
    import('./observability/store-timing.ts'),
    import('./observability/metrics-listener.ts'),
  ]);
  return { ServiceMetrics, measureStore, startMetricsServer };
}
