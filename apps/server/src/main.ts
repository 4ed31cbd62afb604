import cluster from 'node:cluster';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import { developmentTokenPath, loadDevelopmentToken } from './auth/development-token.ts';
import { runPrimary, SHUTDOWN_MESSAGE } from './cluster.ts';
import { type Config, loadConfig, StartupError } from './config.ts';
import { SHUTDOWN_SIGNALS } from './connection/drain.ts';
import {
  createLogger,
  EXIT_FLUSH_MS,
  exitAfterLogs,
  wantsPrettyLogs,
} from './observability/logger.ts';
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
  const baseLogger = createLogger(config.logLevel, {
    pretty: wantsPrettyLogs(config.production, process.stdout.isTTY),
  });
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
    const announcer = logger.isLevelEnabled('info') ? logger : logger.child({}, { level: 'info' });
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
  console.error(`plant-store: ${startupFailure(error, config)}`);
  const debug = config?.logLevel === 'debug' || config?.logLevel === 'trace';
  if (debug && error instanceof Error) console.error(error.stack);
  process.exit(1);
}

/** The one line for a failed start: the error's own words when it is a StartupError. */
function startupFailure(error: unknown, config: Config | undefined): string {
  if (error instanceof StartupError) return error.message;
  const listen = config === undefined ? undefined : listenFailure(error, config);
  if (listen !== undefined) return listen;
  const reason = error instanceof Error ? error.message : String(error);
  return `failed to start: ${reason} (LOG_LEVEL=debug prints the stack)`;
}

/** A listener that could not bind (Node's error carries `address` and `port`). */
function listenFailure(error: unknown, config: Config): string | undefined {
  const syscall = error instanceof Error && 'syscall' in error ? error.syscall : undefined;
  if (!(error instanceof Error) || !['listen', 'getaddrinfo'].includes(String(syscall))) {
    return undefined;
  }
  const port = 'port' in error ? Number(error.port) : config.port;
  const address = String(
    ('address' in error && error.address) || ('hostname' in error && error.hostname) || config.host,
  );
  const metrics = config.metrics !== undefined && port === config.metrics.port;
  const [portSetting, hostSetting] = metrics ? ['METRICS_PORT', 'METRICS_HOST'] : ['PORT', 'HOST'];
  const where = `cannot listen on ${address}:${port}`;
  switch ('code' in error ? error.code : undefined) {
    case 'EADDRINUSE':
      return `${where}: the port is already in use; stop the process that holds it or set ${portSetting} to a free port`;
    case 'EACCES':
      return `${where}: permission denied (ports below 1024 need privileges); set ${portSetting} to 1024 or above`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `${where}: the host name ${address} does not resolve; set ${hostSetting} to an address of this machine (127.0.0.1, or 0.0.0.0 for all)`;
    case 'EADDRNOTAVAIL':
      return `${where}: no network interface of this machine has that address; set ${hostSetting} to one it has (127.0.0.1, or 0.0.0.0 for all)`;
    default:
      return `${where}: ${error.message}`;
  }
}

main();
