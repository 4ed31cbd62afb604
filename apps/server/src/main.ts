import cluster from 'node:cluster';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import { developmentTokenPath, loadDevelopmentToken } from './auth/development-token.ts';
import { runPrimary, SHUTDOWN_MESSAGE } from './cluster.ts';
import { type Config, loadConfig, StartupError } from './config.ts';
import { SHUTDOWN_SIGNALS } from './connection/drain.ts';
import { createLogger, EXIT_FLUSH_MS, exitAfterLogs } from './observability/logger.ts';
import { type RunningServer, startServer } from './server.ts';
import { looseDirectoryWarning } from './store/private-files.ts';

/** How long a shutdown may take after SHUTDOWN_DELAY_MS, logs included, before exit 1. */
const SHUTDOWN_BOUND_MS = 10_000;
type DevelopmentToken = Awaited<ReturnType<typeof loadDevelopmentToken>>;

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
  const tokenFile = developmentTokenPath(config.database);
  const loose =
    config.database.kind === 'sqlite' || config.developmentToken
      ? looseDirectoryWarning(dirname(tokenFile))
      : undefined;
  // No PLANT_STORE_TOKENS outside production: one token kept in the data directory.
  const development = config.developmentToken ? await loadDevelopmentToken(tokenFile) : undefined;
  /** The start-up message whatever LOG_LEVEL says: one JSON line in production, else plain text. */
  const started = (logger: Logger, url: string, metricsUrl?: string) => {
    if (loose !== undefined) logger.warn(loose);
    const metrics = metricsUrl === undefined ? null : `${metricsUrl}/metrics`;
    if (config.production) {
      const announcer = logger.child({}, { level: 'info' });
      const fields = { url, database: config.database.shown, metrics };
      announcer.info(fields, `Plant Store is listening on ${url}`);
      return announcer.flush(); // now, not with the next 4 KiB of lines or the next second
    }
    console.log(`Plant Store is listening on ${url} (${config.database.shown})`);
    if (metrics !== null) console.log(`Metrics: ${metrics}`);
    if (development) console.log(tryIt(url, development));
  };
  if (config.webConcurrency > 1 && cluster.isPrimary) {
    const code = await runPrimary(config, baseLogger, (url) => started(baseLogger, url));
    return void (await exitAfterLogs(baseLogger, code));
  }
  const worker = cluster.worker;
  const logger = worker ? baseLogger.child({ pid: process.pid, worker: worker.id }) : baseLogger;
  let running: RunningServer | undefined;
  // A signal drains and exits 0; a second is absorbed (Ctrl-C under a script runner comes twice).
  // A worker absorbs signals (Ctrl-C and systemd's KillMode signal the whole group) and stops
  // when its primary says so (at once, if not serving yet).
  let stopping = false;
  const shutdown = (signal?: string) => {
    if (stopping) return;
    stopping = true;
    if (running === undefined) return void exitAfterLogs(logger, 0);
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
  const onSignal = worker ? () => undefined : shutdown; // Node passes the signal's name
  for (const signal of SHUTDOWN_SIGNALS) process.on(signal, onSignal);
  if (worker) process.on('message', (message) => message === SHUTDOWN_MESSAGE && shutdown());
  const tokens = development ? [development.token] : config.tokens;
  running = await startServer({ ...config, tokens }, logger);
  if (worker) return void logger.info('worker serving');
  started(logger, running.url, running.metricsUrl);
}

/** How to use the development token (kept in the data directory), as a curl command. */
function tryIt(url: string, { token, file, created }: DevelopmentToken): string {
  return [
    '',
    `No PLANT_STORE_TOKENS configured: this server accepts the development token ${created ? 'made now and kept' : 'kept'} in ${file}:`,
    `  ${token}`,
    'Try it:',
    `  curl -sS -X POST ${url}/plants \\`,
    `    -H 'Authorization: Bearer ${token}' \\`,
    `    -H 'Content-Type: application/json' \\`,
    `    -d '{"id": 1, "name": "Monstera", "tag": "indoor"}'`,
    '',
  ].join('\n');
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
