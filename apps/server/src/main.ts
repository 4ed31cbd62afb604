import { dirname } from 'node:path';
import { developmentTokenPath, loadDevelopmentToken } from './auth/development-token.ts';
import { type Config, loadConfig, StartupError } from './config.ts';
import { SHUTDOWN_SIGNALS } from './connection/drain.ts';
import { createLogger, EXIT_FLUSH_MS, exitAfterLogs } from './observability/logger.ts';
import { runsAsProgram } from './program.ts';
import { type RunningServer, startServer } from './server.ts';
import { looseDirectoryWarning } from './store/private-files.ts';

/** How long a shutdown may take after SHUTDOWN_DELAY_MS, logs included, before exit 1. */
const SHUTDOWN_BOUND_MS = 10_000;
type DevelopmentToken = Awaited<ReturnType<typeof loadDevelopmentToken>>;

/** Starts the server `env` configures; a failed start prints `failureText` and exits 1. */
export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let config: Config | undefined;
  try {
    config = loadConfig(env);
    await run(config);
  } catch (error) {
    console.error(failureText(error, config?.logLevel));
    process.exit(1);
  }
}

async function run(config: Config): Promise<void> {
  // A data directory others may enter: one warning, with the start-up line.
  const tokenFile = developmentTokenPath(config.database);
  const loose =
    config.database.kind === 'sqlite' || config.developmentToken
      ? looseDirectoryWarning(dirname(tokenFile))
      : undefined;
  // No PLANT_STORE_TOKENS outside production: one token kept in the data directory.
  const development = config.developmentToken ? await loadDevelopmentToken(tokenFile) : undefined;
  const logger = createLogger(config.logLevel);
  let running: RunningServer | undefined;
  // A signal drains and exits 0; a second is absorbed (Ctrl-C under a script runner comes twice).
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    if (running === undefined) return exitAfterLogs(logger, 0);
    logger.info({ signal }, 'shutting down');
    const boundMs = config.shutdownDelayMs + SHUTDOWN_BOUND_MS - EXIT_FLUSH_MS;
    setTimeout(() => {
      logger.error(
        `shutdown not complete ${SHUTDOWN_BOUND_MS} ms after SHUTDOWN_DELAY_MS: exiting now`,
      );
      void exitAfterLogs(logger, 1);
    }, boundMs).unref();
    try {
      await running.close();
      logger.info('stopped');
    } catch (error) {
      logger.error({ err: error }, 'shutdown failed');
      return exitAfterLogs(logger, 1);
    }
    return exitAfterLogs(logger, 0);
  };
  for (const signal of SHUTDOWN_SIGNALS) process.on(signal, shutdown); // Node passes its name
  const tokens = development ? [development.token] : config.tokens;
  running = await startServer({ ...config, tokens }, logger);
  // The warnings, then the start-up message whatever LOG_LEVEL says: one JSON line in
  // production, else plain text.
  for (const warning of [loose, ...config.warnings]) if (warning) logger.warn(warning);
  const { url, metricsUrl } = running;
  if (!config.production) return console.log(startupText(config, url, metricsUrl, development));
  const announcer = logger.child({}, { level: 'info' });
  const metrics = metricsUrl === undefined ? null : `${metricsUrl}/metrics`;
  const fields = { url, database: config.database.shown, metrics };
  announcer.info(fields, `Plant Store is listening on ${url}`);
  announcer.flush(); // now, not with the next 8 KiB of lines or the next second
}

/** The plain-text start-up message: the URL, the metrics, how to use a development token. */
export function startupText(
  config: Pick<Config, 'database'>,
  url: string,
  metricsUrl: string | undefined,
  development: DevelopmentToken | undefined,
): string {
  return [
    `Plant Store is listening on ${url} (${config.database.shown})`,
    ...(metricsUrl === undefined ? [] : [`Metrics: ${metricsUrl}/metrics`]),
    ...(development === undefined ? [] : [tryIt(url, development)]),
  ].join('\n');
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

/** A failed start for stderr: one line, and the stack under it with LOG_LEVEL=debug or trace. */
export function failureText(error: unknown, logLevel?: string): string {
  const reason = error instanceof Error ? error.message : String(error);
  const line =
    error instanceof StartupError
      ? error.message
      : `failed to start: ${reason} (LOG_LEVEL=debug prints the stack)`;
  const debug = logLevel === 'debug' || logLevel === 'trace';
  return `plant-store: ${line}${debug && error instanceof Error ? `\n${error.stack}` : ''}`;
}

// Started as the program (`node dist/main.js`), not when imported.
if (runsAsProgram(import.meta.url)) await main();
