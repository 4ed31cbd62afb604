import cluster from 'node:cluster';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import { developmentTokenPath, loadDevelopmentToken } from './auth/development-token.ts';
import { runPrimary, SHUTDOWN_MESSAGE } from './cluster.ts';
import { type Config, loadConfig, StartupError } from './config.ts';
import { SHUTDOWN_SIGNALS } from './connection/drain.ts';
import { createLogger, EXIT_FLUSH_MS, exitAfterLogs } from './observability/logger.ts';
import { startServer } from './server.ts';
import { looseDirectoryWarning } from './store/private-files.ts';

/** How long a shutdown may take after SHUTDOWN_DELAY_MS, logs included, before exit 1. */
const SHUTDOWN_BOUND_MS = 10_000;
async function main(): Promise<void> {
  let config: Config | undefined;
  try {
    config = loadConfig();
    await run(config);
  } catch (error) {
    failedToStart(error, config);
  }
}

async function run(config: Config): Promise<void> {
  const baseLogger = createLogger(config.logLevel);
  // A data directory others may enter: one warning, with the start-up line.
  const { kind } = config.database;
  const dataDirectory = dirname(developmentTokenPath(config.database));
  const loose =
    kind === 'sqlite' || config.developmentToken ? looseDirectoryWarning(dataDirectory) : undefined;
  const warnLoose = (logger: Logger) => loose !== undefined && logger.warn(loose);
  // No PLANT_STORE_TOKENS outside production: one token kept in the data directory.
  const development = config.developmentToken
    ? await loadDevelopmentToken(developmentTokenPath(config.database))
    : undefined;
  if (config.webConcurrency > 1 && cluster.isPrimary) {
    process.exit(
      await runPrimary({
        workers: config.webConcurrency,
        port: config.port,
        host: config.host,
        logger: baseLogger,
        onListening: (url) => {
          warnLoose(baseLogger);
          announce(url, baseLogger, config, development);
        },
        metrics: config.metrics,
      }),
    );
  }
  const worker = cluster.worker;
  // A worker absorbs signals (Ctrl-C and systemd's KillMode signal the whole group) and stops
  // when its primary says so (at once, if not serving yet).
  let stopWorker: () => void = () => process.exit(0);
  if (worker) {
    for (const signal of SHUTDOWN_SIGNALS) process.on(signal, () => undefined);
    process.on('message', (message) => message === SHUTDOWN_MESSAGE && stopWorker());
  }
  const logger = worker ? baseLogger.child({ pid: process.pid, worker: worker.id }) : baseLogger;
  const running = await startServer(
    development ? { ...config, tokens: [development.token] } : config,
    logger,
  );

  // A signal drains and exits 0; a second is absorbed (Ctrl-C under a script runner comes twice).
  let stopping = false;
  const shutdown = (signal?: string) => {
    if (stopping) return;
    stopping = true;
    logger.info(signal ? { signal } : {}, 'shutting down');
    const boundMs = config.shutdownDelayMs + SHUTDOWN_BOUND_MS - EXIT_FLUSH_MS;
    setTimeout(() => {
      logger.error(
        `shutdown not complete ${SHUTDOWN_BOUND_MS} ms after SHUTDOWN_DELAY_MS: exiting now`,
      );
      void exitAfterLogs(logger, 1);
    }, boundMs).unref();
    running.close().then(
      () => {
        logger.info('stopped');
        return exitAfterLogs(logger, 0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        return exitAfterLogs(logger, 1);
      },
    );
  };
  if (worker) {
    stopWorker = () => shutdown();
    return void logger.info('worker serving');
  }
  for (const signal of SHUTDOWN_SIGNALS) process.on(signal, () => shutdown(signal));
  warnLoose(logger);
  announce(running.url, logger, config, development, running.metricsUrl);
}

/** The start-up message whatever LOG_LEVEL says: one JSON line in production, else plain text. */
function announce(
  url: string,
  logger: Logger,
  config: Config,
  development: Awaited<ReturnType<typeof loadDevelopmentToken>> | undefined,
  metricsUrl?: string,
): void {
  const metrics = metricsUrl === undefined ? null : `${metricsUrl}/metrics`;
  if (config.production) {
    const announcer = logger.child({}, { level: 'info' });
    announcer.info(
      { url, database: config.database.shown, metrics },
      `Plant Store is listening on ${url}`,
    );
    announcer.flush(); // now, not with the next 4 KiB of lines or the next second
    return;
  }
  console.log(`Plant Store is listening on ${url} (${config.database.shown})`);
  if (metrics !== null) console.log(`Metrics: ${metrics}`);
  if (development === undefined) return;
  console.log(
    [
      '',
      `No PLANT_STORE_TOKENS configured: this server accepts the development token ${development.created ? 'made now and kept' : 'kept'} in ${development.file}:`,
      `  ${development.token}`,
      'Try it:',
      `  curl -sS -X POST ${url}/plants \\`,
      `    -H 'Authorization: Bearer ${development.token}' \\`,
      `    -H 'Content-Type: application/json' \\`,
      `    -d '{"id": 1, "name": "Monstera", "tag": "indoor"}'`,
      '',
    ].join('\n'),
  );
}

/** A failed start: one line on stderr (the stack with LOG_LEVEL=debug or trace), exit 1. */
function failedToStart(error: unknown, config: Config | undefined): never {
  const reason = error instanceof Error ? error.message : String(error);
  const line =
    error instanceof StartupError
      ? error.message
      : `failed to start: ${reason} (LOG_LEVEL=debug prints the stack)`;
  console.error(`plant-store: ${line}`);
  const debug = config?.logLevel === 'debug' || config?.logLevel === 'trace';
  if (debug && error instanceof Error) console.error(error.stack);
  process.exit(1);
}

main();
