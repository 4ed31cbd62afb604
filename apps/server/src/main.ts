import { developmentTokenPath, loadDevelopmentToken } from './auth/development-token.ts';
import { ConfigError, loadConfig } from './config.ts';
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
  const logger = createLogger(config.logLevel, {
    pretty: wantsPrettyLogs(config.production, process.stdout.isTTY),
  });
  // Outside production with no PLANT_STORE_TOKENS: one token kept in the data directory, so
  // that it survives restarts (yesterday's curl still works).
  const development = config.developmentToken
    ? await loadDevelopmentToken(developmentTokenPath(config.databaseUrl))
    : undefined;
  const running = await startServer(
    development ? { ...config, tokens: [development.token] } : config,
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
  console.log(`Plant Store is listening on ${running.url}`);
  if (development !== undefined) {
    console.log(
      [
        '',
        `No PLANT_STORE_TOKENS configured: this server accepts the development token ${development.created ? 'made now and kept' : 'kept'} in ${development.file}:`,
        `  ${development.token}`,
        'Try it:',
        `  curl -sS -X POST ${running.url}/plants \\`,
        `    -H 'Authorization: Bearer ${development.token}' \\`,
        `    -H 'Content-Type: application/json' \\`,
        `    -d '{"id": 1, "name": "Monstera", "tag": "indoor"}'`,
        '',
      ].join('\n'),
    );
  }

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

main().catch((error: unknown) => {
  // A refusal that names its own way out (no credential in production, say) needs no stack.
  if (error instanceof ConfigError) {
    console.error(`plant-store: ${error.message}`);
    process.exit(1);
  }
  console.error('plant-store: failed to start:', error);
  process.exit(1);
});
