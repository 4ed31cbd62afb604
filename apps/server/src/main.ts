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
  const running = await startServer(config, logger);
  logger.info(
    {
      url: running.url,
      database: maskDatabaseUrl(config.databaseUrl),
      metrics: running.metricsUrl === undefined ? null : `${running.metricsUrl}/metrics`,
    },
    'plant-store listening',
  );
  console.log(`Plant Store is listening on ${running.url}`);
  if (config.generatedToken !== undefined) {
    console.log(
      [
        '',
        'No PLANT_STORE_TOKENS configured: this run accepts one generated token (shown only now):',
        `  ${config.generatedToken}`,
        'Try it:',
        `  curl -sS -X POST ${running.url}/plants \\`,
        `    -H 'Authorization: Bearer ${config.generatedToken}' \\`,
        `    -H 'Content-Type: application/json' \\`,
        `    -d '{"id": 1, "name": "Monstera", "tag": "indoor"}'`,
        '',
      ].join('\n'),
    );
  }

  const shutdown = (signal: string) => {
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
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error: unknown) => {
  console.error('plant-store: failed to start:', error);
  process.exit(1);
});
