import cluster, { type Address, type Worker } from 'node:cluster';
import type { ServerOptions } from 'node:http';
import { createServer } from 'node:net';
import type { Logger } from 'pino';
import { SHUTDOWN_SIGNALS } from './connection/drain.ts';
import { listenOn } from './listen.ts';
import { startMetricsServer } from './observability/metrics-listener.ts';

// WEB_CONCURRENCY > 1, with node:cluster as its documentation shows it: the primary forks the
// workers, replaces one that dies and passes the shutdown on (`worker.send`); each worker
// listens on PORT (the primary hands out the connections, round-robin) and drains when told, as
// a single process does on a signal (/readyz 503 for SHUTDOWN_DELAY_MS, then it stops accepting
// and finishes). Workers absorb signals of their own: systemd's default KillMode and a
// terminal's Ctrl-C signal every process of the group, and the primary says when to stop.

/** The message that tells a worker to drain and exit. */
export const SHUTDOWN_MESSAGE = 'plant-store:shutdown';
/** A draining worker's report that it stopped accepting, and the primary's once all did. */
const STOPPED_ACCEPTING = 'plant-store:stopped-accepting';
const ALL_STOPPED_ACCEPTING = 'plant-store:all-stopped-accepting';

/**
 * In a worker: tells the primary that this worker stopped accepting and resolves once every
 * worker has. Until then its answers keep their connections: a client told to reconnect would
 * be accepted by the primary, queued, and reset when the last worker stops (Node closes what it
 * still queues); the shutdown-under-load test met 11 such resets on Node 24 without this.
 */
export function allWorkersStoppedAccepting(): Promise<void> {
  return new Promise((resolve) => {
    const listener = (message: unknown) => {
      if (message !== ALL_STOPPED_ACCEPTING) return;
      process.off('message', listener);
      resolve();
    };
    process.on('message', listener);
    process.send?.(STOPPED_ACCEPTING);
  });
}

/** First wait before a dead worker is replaced; it doubles with each death in a row, to 30 s. */
const RESTART_DELAY_MS = 250;
const MAX_RESTART_DELAY_MS = 30_000;
/** How long the primary waits for its workers after a signal before it kills them. */
const STOP_TIMEOUT_MS = 30_000;

/** Options of `runPrimary`. */
export interface PrimaryOptions {
  /** How many workers to keep running. */
  readonly workers: number;
  /** Where the workers listen (PORT, HOST): checked free before any is forked. */
  readonly port: number;
  readonly host: string;
  readonly logger: Logger;
  /** Called once, when every worker of the first start listens (the startup message). */
  readonly onListening: (url: string) => void;
  /** Where `GET /metrics` is served (METRICS_PORT): every worker's metrics, added up. */
  readonly metrics?: { readonly port: number; readonly host: string };
  /** The HTTP server options of that listener (the API's timeouts). */
  readonly serverOptions?: ServerOptions;
}

/**
 * The primary process: forks `workers` workers and keeps that many running. A worker that dies
 * before all of the first start listen fails the start (1: a bad database URL, a port in use —
 * a replacement would only fail again); later, a dead worker is replaced after a backoff. The
 * first SIGTERM, SIGINT or SIGHUP is forwarded to every worker (later ones are absorbed: the
 * workers are stopping already); resolves with 0 once all exited with 0, else 1.
 *
 * @example
 * process.exit(await runPrimary({ workers: 4, logger, onListening: console.log }));
 */
export async function runPrimary(options: PrimaryOptions): Promise<number> {
  const { logger } = options;
  // A port in use fails the start here, with one line, rather than in every worker.
  const probe = createServer();
  await listenOn(probe, options.port, options.host);
  await new Promise((resolve) => probe.close(resolve));
  const metrics = options.metrics ? await serveMetrics(options, options.metrics) : undefined;
  let stopping = false;
  let failed = false;
  let started = false;
  let deathsInARow = 0;
  const listening = new Set<number>();
  const live = new Set<Worker>();
  const fork = () => {
    const worker = cluster.fork();
    live.add(worker);
  };

  let stopped: () => void = () => undefined;
  const done = new Promise<void>((resolve) => {
    stopped = resolve;
  });
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down the workers');
    for (const worker of live) worker.send(SHUTDOWN_MESSAGE, () => undefined);
    setTimeout(() => {
      logger.error('workers did not stop in time: killing them');
      failed = true;
      for (const worker of live) worker.process.kill('SIGKILL');
    }, STOP_TIMEOUT_MS).unref();
  };
  for (const signal of SHUTDOWN_SIGNALS) process.on(signal, stop);
  const stoppedAccepting = new Set<Worker>();
  const allStopped = () => {
    if (stopping && [...live].every((worker) => stoppedAccepting.has(worker))) {
      for (const worker of live) worker.send(ALL_STOPPED_ACCEPTING, () => undefined);
    }
  };
  cluster.on('message', (worker: Worker, message: unknown) => {
    if (message !== STOPPED_ACCEPTING) return;
    stoppedAccepting.add(worker);
    allStopped();
  });

  cluster.on('listening', (worker: Worker, address: Address) => {
    listening.add(worker.id);
    if (started || listening.size < options.workers) return;
    started = true;
    logger.info({ workers: options.workers }, 'all workers serving');
    const host = address.addressType === 6 ? `[${address.address}]` : address.address;
    options.onListening(`http://${host}:${address.port}`);
  });
  cluster.on('exit', (worker: Worker, code: number, signal: string) => {
    live.delete(worker);
    const served = listening.delete(worker.id);
    if (stopping) {
      if (code !== 0) failed = true;
      if (live.size === 0) stopped();
      allStopped();
      return;
    }
    logger.error({ worker: worker.process.pid, code, signal }, 'worker exited unexpectedly');
    if (!started) {
      logger.error('a worker failed to start: stopping');
      failed = true;
      stop('SIGTERM');
      if (live.size === 0) stopped();
      return;
    }
    deathsInARow = served ? 0 : deathsInARow + 1;
    const delayMs = Math.min(RESTART_DELAY_MS * 2 ** deathsInARow, MAX_RESTART_DELAY_MS);
    logger.warn({ delayMs }, 'replacing the worker');
    setTimeout(() => {
      if (!stopping) fork();
    }, delayMs);
  });
  for (let i = 0; i < options.workers; i += 1) fork();

  await done;
  await metrics?.close().catch(() => undefined);
  logger.info({ failed }, 'all workers stopped');
  return failed ? 1 : 0;
}

/** With METRICS_PORT: the metrics of all workers added up, served by the primary. */
async function serveMetrics(
  options: PrimaryOptions,
  address: { readonly port: number; readonly host: string },
) {
  const { clusterMetrics } = await import('./observability/cluster-metrics.ts');
  const server = await startMetricsServer(
    clusterMetrics(),
    address,
    options.logger,
    options.serverOptions ?? {},
  );
  options.logger.info({ metrics: `${server.url}/metrics` }, 'metrics of all workers');
  return server;
}
