import cluster, { type Address, type Worker } from 'node:cluster';
import { createServer } from 'node:net';
import type { Logger } from 'pino';
import { AggregatorRegistry } from 'prom-client';
import type { Config } from './config.ts';
import { SHUTDOWN_SIGNALS } from './connection/drain.ts';
import { baseUrl, listenOn } from './listen.ts';
import { startMetricsServer } from './observability/metrics-listener.ts';

// WEB_CONCURRENCY > 1 on node:cluster: the primary forks, replaces dead workers and passes the
// shutdown on (`worker.send`); workers listen on PORT and drain when told (main.ts).

export const SHUTDOWN_MESSAGE = 'plant-store:shutdown';

/** First wait before a dead worker is replaced; it doubles with each death in a row, to 30 s. */
const RESTART_DELAY_MS = 250;
const MAX_RESTART_DELAY_MS = 30_000;
/** How long the primary waits for its workers after a signal before it kills them. */
const STOP_TIMEOUT_MS = 30_000;

/** How long to wait before replacing a worker, after `deathsInARow` deaths of unserving ones. */
export function restartDelayMs(deathsInARow: number): number {
  return Math.min(RESTART_DELAY_MS * 2 ** deathsInARow, MAX_RESTART_DELAY_MS);
}

/**
 * Keeps WEB_CONCURRENCY workers running; one dying before all first listen fails the start (a
 * replacement would fail again), later ones are replaced after a backoff. `onListening` is
 * called once, when every worker of the first start listens; METRICS_PORT serves every
 * worker's metrics added up, on a listener of the primary. The first signal is forwarded to
 * every worker; resolves with 0 once all exited with 0, else 1.
 * @example
 * process.exit(await runPrimary(loadConfig(), logger, console.log));
 */
export async function runPrimary(
  config: Pick<Config, 'webConcurrency' | 'port' | 'host' | 'metrics'>,
  logger: Logger,
  onListening: (url: string) => void,
): Promise<number> {
  const workers = config.webConcurrency;
  // A port in use fails the start here, with one line, rather than in every worker.
  const probe = createServer();
  await listenOn(probe, config.port, config.host);
  await new Promise((resolve) => probe.close(resolve));
  let metrics: Awaited<ReturnType<typeof startMetricsServer>> | undefined;
  if (config.metrics) {
    const registry = new AggregatorRegistry(); // asks every worker for its metrics, adds them up
    const all = { contentType: registry.contentType, metrics: () => registry.clusterMetrics() };
    metrics = await startMetricsServer(all, config.metrics, logger);
    logger.info({ metrics: `${metrics.url}/metrics` }, 'metrics of all workers');
  }
  let stopping = false;
  let failed = false;
  let deathsInARow = 0;
  const serving = new WeakSet<Worker>();
  let listening = 0;
  const live = () => Object.values(cluster.workers ?? {}).filter((worker) => worker !== undefined);

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down the workers');
    for (const worker of live()) worker.send(SHUTDOWN_MESSAGE, () => undefined);
    setTimeout(() => {
      logger.error('workers did not stop in time: killing them');
      failed = true;
      for (const worker of live()) worker.process.kill('SIGKILL');
    }, STOP_TIMEOUT_MS).unref();
  };
  for (const signal of SHUTDOWN_SIGNALS) process.on(signal, stop);

  cluster.on('listening', (worker: Worker, address: Address) => {
    serving.add(worker);
    listening += 1;
    if (listening !== workers) return;
    logger.info({ workers }, 'all workers serving');
    onListening(baseUrl(address.address, address.port));
  });
  // Node removes an exited worker from `cluster.workers` before its 'exit' event.
  const allExited = new Promise<void>((resolve) => {
    cluster.on('exit', (worker: Worker, code: number, signal: string) => {
      if (!stopping) {
        logger.error({ worker: worker.process.pid, code, signal }, 'worker exited unexpectedly');
        if (listening >= workers) {
          deathsInARow = serving.has(worker) ? 0 : deathsInARow + 1;
          const delayMs = restartDelayMs(deathsInARow);
          logger.warn({ delayMs }, 'replacing the worker');
          return void setTimeout(() => stopping || cluster.fork(), delayMs);
        }
        logger.error('a worker failed to start: stopping');
        failed = true;
        stop('SIGTERM');
      }
      if (code !== 0) failed = true;
      if (live().length === 0) resolve();
    });
  });
  for (let i = 0; i < workers; i += 1) cluster.fork();

  await allExited;
  await metrics?.close().catch(() => undefined);
  logger.info({ failed }, 'all workers stopped');
  return failed ? 1 : 0;
}
