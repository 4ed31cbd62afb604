import cluster from 'node:cluster';
import { developmentTokenPath, loadDevelopmentToken } from './auth/development-token.ts';
import { joinCluster, runPrimary } from './cluster.ts';
import { ConfigError, loadConfig } from './config.ts';
import { httpServerOptions } from './http/timeouts.ts';
import { createLogger, wantsPrettyLogs } from './observability/logger.ts';
import { startServer } from './server.ts';
import { maskDatabaseUrl } from './store/open-store.ts';

// The process entry point: configuration from the environment, the server, the signals.
async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`plant-store: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  const baseLogger = createLogger(config.logLevel, {
    pretty: wantsPrettyLogs(config.production, process.stdout.isTTY),
  });
  // Outside production with no PLANT_STORE_TOKENS: one token kept in the data directory, so
  // that it survives restarts (yesterday's curl still works). In a cluster the primary makes
  // it before forking, and the workers read it.
  const development = config.developmentToken
    ? await loadDevelopmentToken(developmentTokenPath(config.databaseUrl))
    : undefined;
  // WEB_CONCURRENCY > 1: this process forks the HTTP workers and serves none itself.
  if (config.webConcurrency > 1 && cluster.isPrimary) {
    process.exit(
      await runPrimary({
        workers: config.webConcurrency,
        logger: baseLogger,
        onListening: (url) => printWelcome(url, development),
        ...(config.metrics
          ? {
              metrics: config.metrics,
              serverOptions: httpServerOptions({ keepAliveTimeoutMs: config.keepAliveTimeoutMs }),
            }
          : {}),
      }),
    );
  }
  const role = config.webConcurrency > 1 ? await joinCluster() : undefined;
  // Each worker's lines name it (the pid), since they share one output.
  const logger = role ? baseLogger.child({ pid: process.pid, worker: role.slot }) : baseLogger;
  const running = await startServer(
    {
      ...(development ? { ...config, tokens: [development.token] } : config),
      ...(role ? { cluster: role } : {}),
    },
    logger,
  );
  logger.info(
    {
      url: running.url,
      database: maskDatabaseUrl(config.databaseUrl),
      metrics: running.metricsUrl === undefined ? null : `${running.metricsUrl}/metrics`,
    },
    'plant-store listening',
  );
  if (role) role.listening(running.url);
  else printWelcome(running.url, development);

  // A signal that arrives during the shutdown is absorbed, not fatal: Ctrl-C under a script
  // runner reaches the server twice (from the terminal to the process group, and forwarded by
  // the runner), and dying of the second would turn a clean stop into a failure. The shutdown
  // itself is bounded (SHUTDOWN_GRACE_MS in server.ts).
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    running.close().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

/** The startup message: where the server listens and, in development, the token to use. */
function printWelcome(
  url: string,
  development: Awaited<ReturnType<typeof loadDevelopmentToken>> | undefined,
): void {
  console.log(`Plant Store is listening on ${url}`);
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

main().catch((error: unknown) => {
  // A refusal that names its own way out (no credential in production, say) needs no stack.
  if (error instanceof ConfigError) {
    console.error(`plant-store: ${error.message}`);
    process.exit(1);
  }
  console.error('plant-store: failed to start:', error);
  process.exit(1);
});
