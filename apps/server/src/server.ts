import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { createApp } from './app.ts';
import { tokenStatus } from './auth/manage-tokens.ts';
import { TokenRegistry } from './auth/token-registry.ts';
import { tokenStore } from './auth/token-store.ts';
import { type Config, ConfigError, NO_CREDENTIAL_MESSAGE } from './config.ts';
import { drainOnShutdown } from './connection/drain.ts';
import { createHttpServer, type HttpTimeouts } from './connection/http-server.ts';
import type { Lifecycle } from './handlers.ts';
import { RateLimits } from './limits/rate-limits.ts';
import { databaseCounts } from './limits/shared-counts.ts';
import { listenOn } from './listen.ts';
import { ServiceMetrics } from './observability/metrics.ts';
import { startMetricsServer } from './observability/metrics-listener.ts';
import type { BatchedStoreOptions } from './store/batched-store.ts';
import { openDatabaseHandle } from './store/database.ts';
import type { PlantStore } from './store/plant-store.ts';
import { createSqliteStore } from './store/sqlite/sqlite-store.ts';

export interface RunningServer {
  readonly url: string;
  readonly server: Server;
  readonly store: PlantStore;
  /** Base URL of the metrics listener (`${metricsUrl}/metrics`), when one was configured. */
  readonly metricsUrl?: string;
  /** Stops accepting, lets in-flight requests finish, then closes the store. */
  close(): Promise<void>;
}

type Needed = 'port' | 'host' | 'database' | 'tokens' | 'bodyLimitBytes' | 'durability';
type ServerConfig = Pick<Config, Needed> &
  Partial<Omit<Config, Needed>> & { readonly timeouts?: Partial<HttpTimeouts> };

type CleanUp = Array<() => Promise<void>>;

/** Closes what was opened, last first (the HTTP server drains before the stores close). */
async function cleanUp(list: CleanUp): Promise<void> {
  const failures: unknown[] = [];
  for (const close of [...list].reverse()) await close().catch((error) => failures.push(error));
  if (failures.length > 0) throw failures[0];
}

/**
 * Opens the store (running its migrations) and serves the API on `config.host:config.port`;
 * whatever a step opened is closed when a later step fails or the server closes.
 *
 * @example
 * const running = await startServer(loadConfig(), logger);
 * console.log(running.url);
 * await running.close();
 */
export async function startServer(config: ServerConfig, logger: Logger): Promise<RunningServer> {
  const opened: CleanUp = [];
  try {
    const resources = await openResources(config, logger, opened);
    const lifecycle: Lifecycle = { draining: false, closing: false };
    const app = createApp({
      ...resources,
      lifecycle,
      logger,
      bodyLimitBytes: config.bodyLimitBytes,
      corsOrigins: config.corsOrigins,
      trustProxy: config.trustProxy,
    });
    // The API's listener, on Node's settings.
    const max = config.maxConnections ?? 0;
    const server = createHttpServer(app.callback(), {
      timeouts: {
        ...(config.keepAliveTimeoutMs ? { keepAliveTimeout: config.keepAliveTimeoutMs } : {}),
        ...config.timeouts,
      },
      maxConnections: max,
      onDrop: () =>
        logger.warn(
          { maxConnections: max },
          `connection cap reached: ${max} connections are open and new ones are closed at once. If this is real traffic, raise MAX_CONNECTIONS (below the descriptor limit, LimitNOFILE=) or add instances`,
        ),
    });
    const url = await listenOn(server, config.port, config.host);
    server.on('error', (error) => logger.error({ err: error }, 'HTTP server error'));
    opened.push(() => drainOnShutdown(server, lifecycle, config.shutdownDelayMs));
    const metricsServer =
      resources.metrics && config.metrics
        ? await startMetricsServer(resources.metrics.registry, config.metrics, logger)
        : undefined;
    if (metricsServer) opened.push(() => metricsServer.close());
    let closing: Promise<void> | undefined;
    return {
      url,
      server,
      store: resources.store,
      ...(metricsServer ? { metricsUrl: metricsServer.url } : {}),
      close: () => {
        closing ??= cleanUp(opened);
        return closing;
      },
    };
  } catch (error) {
    await cleanUp(opened).catch(() => undefined);
    throw error;
  }
}

/** The database (one handle), the plants, the managed tokens and the rate limits on it, the metrics. */
async function openResources(config: ServerConfig, logger: Logger, opened: CleanUp) {
  const service = config.metrics ? new ServiceMetrics() : undefined;
  // Without configured tokens only managed ones can be accepted, and a SQLite file that does
  // not exist yet holds none: refused before opening the store would create the file.
  const { database } = config;
  if (config.tokens.length === 0 && database.kind === 'sqlite' && !existsSync(database.filename)) {
    throw new ConfigError(NO_CREDENTIAL_MESSAGE);
  }
  const handle = await openDatabaseHandle(database, {
    durability: config.durability,
    ...(config.postgres ? { postgres: config.postgres } : {}),
    onError: (error, context) => logger.warn(`${context}: ${error.message}`),
  });
  opened.push(() => handle.close());
  const storeOptions: BatchedStoreOptions = {
    onReadinessChange: (readiness) => {
      if (readiness.ready) return logger.info('ready again: the store commits');
      const { code, message } = readiness.cause;
      logger.error({ cause: code }, `not ready (${code}): ${message}`);
    },
    ...(service ? { observer: service.storeObserver() } : {}),
  };
  const store =
    handle.kind === 'sqlite'
      ? createSqliteStore({ ...storeOptions, filename: handle.filename, db: handle.db })
      : await (await import('./store/postgres/postgres-store.ts')).createPostgresStore({
          ...storeOptions,
          url: handle.url,
          handle,
        });
  opened.push(() => store.close());
  const tokens = tokenStore(handle);
  // A server that could accept nobody refuses to start.
  if (config.tokens.length === 0) {
    const records = await tokens.list();
    if (!records.some((record) => tokenStatus(record) === 'active')) {
      throw new ConfigError(NO_CREDENTIAL_MESSAGE);
    }
  }
  let warnedAt = Number.NEGATIVE_INFINITY;
  const rateLimits = config.rateLimit
    ? RateLimits.create(config.rateLimit, databaseCounts(handle), {
        ...(service ? { onLimited: (limit) => service.rateLimited.inc({ limit }) } : {}),
        onStoreError: (error) => {
          if (performance.now() - warnedAt < 60_000) return; // once a minute at most
          warnedAt = performance.now();
          logger.warn(
            `rate limits: the shared counts cannot be written (${String(error)}); counting in this process's memory meanwhile`,
          );
        },
      })
    : undefined;
  if (rateLimits) opened.push(async () => rateLimits.close());
  return {
    store,
    tokens: new TokenRegistry(config.tokens, tokens),
    ...(rateLimits ? { rateLimits } : {}),
    ...(service ? { metrics: service } : {}),
  };
}
