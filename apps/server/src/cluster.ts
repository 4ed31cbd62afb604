import cluster, { type Worker } from 'node:cluster';
import type { ServerOptions } from 'node:http';
import type { Logger } from 'pino';
import { RateLimiterClusterMaster } from 'rate-limiter-flexible';
import { clusterMetrics } from './observability/cluster-metrics.ts';
import { startMetricsServer } from './observability/metrics-listener.ts';
import type { ClusterWorkerRole } from './server.ts';

// WEB_CONCURRENCY > 1: a primary process forks that many HTTP workers (node:cluster), which
// share the port; the primary serves no HTTP itself. It counts the rate limits of all workers
// (SQLite: rate-limiter-flexible's RateLimiterClusterMaster, see limits/limiter-store.ts),
// replaces a worker that dies, and on SIGTERM/SIGINT stops them all gracefully.

/** Tags this module's messages between the primary and its workers. */
const TAG = 'plant-store:cluster';

type ToPrimary =
  | { readonly tag: typeof TAG; readonly type: 'hello' }
  | { readonly tag: typeof TAG; readonly type: 'listening'; readonly url: string };
type ToWorker = { readonly tag: typeof TAG; readonly type: 'role'; readonly slot: number };

/** First wait before a dead worker is replaced; it doubles with each death in a row. */
const RESTART_DELAY_MS = 250;
/** Longest wait before a dead worker is replaced. */
const MAX_RESTART_DELAY_MS = 30_000;
/** A worker that served this long before it died starts its slot's backoff afresh. */
const STABLE_MS = 30_000;
/**
 * How long the primary waits for its workers to stop after a signal before it kills them:
 * longer than a worker's own bound (the HTTP drain, SHUTDOWN_GRACE_MS, then the store's close),
 * plus SHUTDOWN_DELAY_MS.
 */
const STOP_TIMEOUT_MS = 30_000;

/** Messages between the primary and one worker. */
interface IpcChannel {
  send(message: unknown): void;
  onMessage(listener: (message: unknown) => void): () => void;
}

/** The channel from a cluster worker to its primary (`process.send`). */
function workerChannel(): IpcChannel {
  return {
    send: (message) => {
      if (process.send === undefined) throw new Error('Not a cluster worker: no IPC channel');
      process.send(message);
    },
    onMessage: (listener) => {
      process.on('message', listener);
      return () => process.off('message', listener);
    },
  };
}

/** A worker joining its cluster: asks the primary for its slot (named in its log lines). */
export function joinCluster(): Promise<ClusterWorkerRole & { listening(url: string): void }> {
  const channel = workerChannel();
  return new Promise((resolve) => {
    const stop = channel.onMessage((message) => {
      const role = message as Partial<ToWorker>;
      if (role.tag !== TAG || role.type !== 'role') return;
      stop();
      resolve({
        slot: role.slot ?? 0,
        listening: (url) => channel.send({ tag: TAG, type: 'listening', url } satisfies ToPrimary),
      });
    });
    channel.send({ tag: TAG, type: 'hello' } satisfies ToPrimary);
  });
}

/** Options of `runPrimary`. */
export interface PrimaryOptions {
  /** How many workers to keep running. */
  readonly workers: number;
  readonly logger: Logger;
  /** Called once, when every worker of the first start listens (the startup message). */
  readonly onListening: (url: string) => void;
  /**
   * Where `GET /metrics` is served (METRICS_PORT): by the primary, every worker's metrics
   * added up (the workers open no metrics listener).
   */
  readonly metrics?: { readonly port: number; readonly host: string };
  /** The HTTP server options of that listener (the API's timeouts). */
  readonly serverOptions?: ServerOptions;
  /** SHUTDOWN_DELAY_MS: the workers' readiness drain, added to the wait for them to stop. */
  readonly shutdownDelayMs?: number;
}

/**
 * The primary process: forks `workers` workers and keeps that many running. A worker that dies
 * before all of the first start listen fails the start (exit code 1: a port in use, a bad
 * database URL — a replacement would only fail again); later, a dead worker is replaced after
 * a backoff (250 ms, doubling per death in a row of its slot, at most 30 s). SIGTERM or SIGINT
 * is passed on to every worker, which drains and stops as a single server does; the result
 * is 0 once all exited with 0, else 1.
 *
 * @example
 * process.exit(await runPrimary({ workers: 4, logger, onListening: (url) => console.log(url) }));
 */
export async function runPrimary(options: PrimaryOptions): Promise<number> {
  const { logger } = options;
  const metrics = options.metrics
    ? await startMetricsServer(
        clusterMetrics(),
        options.metrics,
        logger,
        options.serverOptions ?? {},
      )
    : undefined;
  if (metrics) logger.info({ metrics: `${metrics.url}/metrics` }, 'metrics of all workers');
  // The rate limits of all workers on SQLite are counted here (see limits/limiter-store.ts).
  new RateLimiterClusterMaster();
  const slots = Array.from({ length: options.workers }, () => ({
    worker: undefined as Worker | undefined,
    listeningSince: undefined as number | undefined,
    deaths: 0,
    restart: undefined as NodeJS.Timeout | undefined,
  }));
  let started = false;
  let stopping = false;
  let failed = false;
  let resolveDone: (code: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => {
    resolveDone = resolve;
  });

  const fork = (slot: number) => {
    const state = slots[slot];
    if (state === undefined) return;
    state.restart = undefined;
    state.listeningSince = undefined;
    const worker = cluster.fork();
    state.worker = worker;
    worker.on('message', (message: Partial<ToPrimary> & { url?: unknown }) => {
      if (message.tag !== TAG) return;
      if (message.type === 'hello') {
        worker.send({ tag: TAG, type: 'role', slot } satisfies ToWorker);
      } else if (message.type === 'listening') {
        state.listeningSince = Date.now();
        if (!started && slots.every((s) => s.listeningSince !== undefined)) {
          started = true;
          logger.info({ workers: options.workers }, 'all workers listening');
          options.onListening(String(message.url));
        }
      }
    });
    worker.once('exit', (code, signal) => {
      state.worker = undefined;
      if (stopping) {
        if (code !== 0) failed = true;
        if (slots.every((s) => s.worker === undefined)) finish();
        return;
      }
      logger.error(
        { worker: worker.process.pid, slot, code, signal },
        'worker exited unexpectedly',
      );
      if (!started) {
        failed = true;
        logger.error('a worker failed to start: stopping');
        stop();
        return;
      }
      if (state.listeningSince !== undefined && Date.now() - state.listeningSince >= STABLE_MS) {
        state.deaths = 0;
      }
      const delay = Math.min(RESTART_DELAY_MS * 2 ** state.deaths, MAX_RESTART_DELAY_MS);
      state.deaths += 1;
      logger.warn({ slot, delayMs: delay }, 'replacing the worker');
      state.restart = setTimeout(() => fork(slot), delay);
    });
  };

  let killTimer: NodeJS.Timeout | undefined;
  const finish = () => {
    clearTimeout(killTimer);
    Promise.all([metrics?.close()]).then(
      () => {
        logger.info({ failed }, 'all workers stopped');
        resolveDone(failed ? 1 : 0);
      },
      () => resolveDone(1),
    );
  };
  const stop = () => {
    if (stopping) return;
    stopping = true;
    for (const state of slots) clearTimeout(state.restart);
    const running = slots.flatMap((s) => (s.worker ? [s.worker] : []));
    if (running.length === 0) {
      finish();
      return;
    }
    for (const worker of running) worker.process.kill('SIGTERM');
    killTimer = setTimeout(
      () => {
        logger.error('workers did not stop in time: killing them');
        failed = true;
        for (const worker of running) worker.process.kill('SIGKILL');
      },
      STOP_TIMEOUT_MS + (options.shutdownDelayMs ?? 0),
    );
  };

  // A second signal (Ctrl-C reaches the whole process group, and a script runner may forward
  // it too) is absorbed: the workers are stopping already.
  const onSignal = (signal: NodeJS.Signals) => {
    if (!stopping) logger.info({ signal }, 'shutting down the workers');
    stop();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  for (let slot = 0; slot < options.workers; slot += 1) fork(slot);
  return await done;
}
