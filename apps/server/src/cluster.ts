import cluster, { type Worker } from 'node:cluster';
import type { ServerOptions } from 'node:http';
import { createServer, type Socket } from 'node:net';
import type { Logger } from 'pino';
import { listenOn } from './listen.ts';
import { startMetricsServer } from './observability/metrics-listener.ts';
import { type ClusterWorkerRole, warnOnce } from './server.ts';

// WEB_CONCURRENCY > 1: a primary process forks that many HTTP workers (node:cluster). The
// primary listens on the port itself and hands each connection it accepts to the next ready
// worker (round-robin), which serves it; the primary serves no HTTP. It replaces a worker that
// dies, and on SIGTERM/SIGINT stops accepting,
// then has every worker drain. (Node's own cluster listener closes the connections it has
// accepted but not yet handed over when the last worker stops: clients met resets.)

/** Tags this module's messages between the primary and its workers (others share the channel). */
const TAG = 'plant-store:cluster';

type ToPrimary = { readonly tag: typeof TAG; readonly type: 'hello' | 'ready' };
type ToWorker =
  | { readonly tag: typeof TAG; readonly type: 'role'; readonly slot: number; readonly url: string }
  | { readonly tag: typeof TAG; readonly type: 'connection' | 'stop' };

/** Whether `message` is this module's, of `type`. */
function isOurs(message: unknown, type: (ToPrimary | ToWorker)['type']): boolean {
  const tagged = message as Partial<{ tag: unknown; type: unknown }> | null | undefined;
  return tagged?.tag === TAG && tagged.type === type;
}

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

/**
 * A worker joining its cluster: asks the primary for its slot (named in its log lines) and the
 * URL it listens on. SIGTERM and SIGINT sent straight to a worker are absorbed (systemd's
 * default KillMode and a terminal's Ctrl-C signal every process of the group): a worker stops
 * when its primary says so, once the primary no longer accepts; before it serves, at once. A
 * primary that dies takes its workers with it (Node's cluster ends a worker whose channel
 * closes).
 */
export function joinCluster(): Promise<ClusterWorkerRole & { serving(stop: () => void): void }> {
  const send = (message: ToPrimary) => {
    if (process.send === undefined) throw new Error('Not a cluster worker: no IPC channel');
    process.send(message);
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => undefined);
  let stop: () => void = () => process.exit(0);
  let serve: (socket: Socket) => void = (socket) => socket.destroy();
  return new Promise((resolve) => {
    process.on('message', (message: unknown, socket: unknown) => {
      if (isOurs(message, 'stop')) stop();
      else if (isOurs(message, 'connection') && socket) serve(socket as Socket);
      else if (isOurs(message, 'role')) {
        const { slot, url } = message as Extract<ToWorker, { type: 'role' }>;
        resolve({
          slot,
          url,
          receive: (handler) => {
            serve = handler;
          },
          serving: (onStop) => {
            stop = onStop;
            send({ tag: TAG, type: 'ready' });
          },
        });
      }
    });
    send({ tag: TAG, type: 'hello' });
  });
}

/** Options of `runPrimary`. */
export interface PrimaryOptions {
  /** How many workers to keep running. */
  readonly workers: number;
  /** Where the API listens (PORT, HOST): the primary's own listener. */
  readonly port: number;
  readonly host: string;
  readonly logger: Logger;
  /** Called once, when every worker of the first start serves (the startup message). */
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

/** The callback of the primary's sends: a closed channel is then no 'error' event. */
const ignore = () => undefined;

/**
 * The primary process: listens on `host:port` (rejects with Node's error if it cannot: a port
 * in use), forks `workers` workers and keeps that many running, handing each connection it
 * accepts to the next worker that serves. A worker that dies before all of the first start
 * serve fails the start (exit code 1: a bad database URL — a replacement would only fail
 * again); later, a dead worker is replaced after a backoff (250 ms, doubling per death in a row
 * of its slot, at most 30 s). On SIGTERM or SIGINT the primary stops accepting (new
 * connections are refused), then tells every worker to drain and stop as a single server
 * does; the result is 0 once all exited with 0, else 1.
 *
 * @example
 * process.exit(await runPrimary({ workers: 4, port, host, logger, onListening: console.log }));
 */
export async function runPrimary(options: PrimaryOptions): Promise<number> {
  const { logger } = options;
  // Paused: the worker that gets a connection reads its request, not the primary.
  const listener = createServer({ pauseOnConnect: true });
  const url = await listenOn(listener, options.port, options.host);
  listener.on('error', warnOnce(logger));
  const metrics = options.metrics
    ? await startMetricsServer(
        (await import('./observability/cluster-metrics.ts')).clusterMetrics(),
        options.metrics,
        logger,
        options.serverOptions ?? {},
      )
    : undefined;
  if (metrics) logger.info({ metrics: `${metrics.url}/metrics` }, 'metrics of all workers');
  const slots = Array.from({ length: options.workers }, () => ({
    worker: undefined as Worker | undefined,
    servingSince: undefined as number | undefined,
    handing: new Set<Socket>(), // sent to the worker, the send not complete yet
    deaths: 0,
    restart: undefined as NodeJS.Timeout | undefined,
  }));
  /** Connections accepted while no worker serves (at the start, or all are being replaced). */
  const waiting: Socket[] = [];
  let turn = 0;
  let started = false;
  let stopping = false;
  let failed = false;
  let resolveDone: (code: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => {
    resolveDone = resolve;
  });

  // The worker gets its own descriptor of the connection: the primary's copy is closed once
  // it is sent. A send that fails is tried with another worker; no worker left closes it.
  const handOff = (socket: Socket, tries = 0): void => {
    const serving = slots.flatMap(({ worker, servingSince, handing }) =>
      worker?.isConnected() && servingSince !== undefined ? [{ worker, handing }] : [],
    );
    const target = serving[turn++ % Math.max(serving.length, 1)];
    if (target === undefined) {
      if (stopping) socket.destroy();
      else waiting.push(socket);
      return;
    }
    if (tries >= serving.length) {
      socket.destroy(); // every worker failed to take it
      return;
    }
    const { worker, handing } = target;
    handing.add(socket);
    const message: ToWorker = { tag: TAG, type: 'connection' };
    worker.send(message, socket, { keepOpen: true }, (error) => {
      if (!handing.delete(socket)) return; // its worker died: handed to another already
      if (error) handOff(socket, tries + 1);
      else socket.destroy();
    });
  };
  listener.on('connection', (socket) => handOff(socket));

  const fork = (slot: number) => {
    const state = slots[slot];
    if (state === undefined) return;
    state.restart = undefined;
    state.servingSince = undefined;
    state.handing = new Set();
    const worker = cluster.fork();
    state.worker = worker;
    worker.on('message', (message: unknown) => {
      if (isOurs(message, 'hello')) {
        // A worker forked just before a stop may have missed it (it was not listening yet).
        const reply: ToWorker = stopping
          ? { tag: TAG, type: 'stop' }
          : { tag: TAG, type: 'role', slot, url };
        worker.send(reply, ignore);
      } else if (isOurs(message, 'ready')) {
        state.servingSince = Date.now();
        for (const socket of waiting.splice(0)) handOff(socket);
        if (!started && slots.every((s) => s.servingSince !== undefined)) {
          started = true;
          logger.info({ workers: options.workers }, 'all workers serving');
          options.onListening(url);
        }
      }
    });
    worker.once('exit', (code, signal) => {
      const since = state.servingSince;
      state.worker = undefined;
      state.servingSince = undefined;
      const orphans = [...state.handing];
      state.handing.clear();
      for (const socket of orphans) handOff(socket);
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
      if (since !== undefined && Date.now() - since >= STABLE_MS) state.deaths = 0;
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
    // First no new connection (the kernel refuses them); every one accepted so far has been
    // sent to a worker, before the stop on the same channel, and is answered while it drains.
    listener.close();
    for (const socket of waiting.splice(0)) socket.destroy();
    for (const state of slots) clearTimeout(state.restart);
    const running = slots.flatMap((s) => (s.worker ? [s.worker] : []));
    if (running.length === 0) {
      finish();
      return;
    }
    for (const worker of running)
      worker.send({ tag: TAG, type: 'stop' } satisfies ToWorker, ignore);
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
  process.on('SIGHUP', onSignal); // a closing terminal: drain as for SIGTERM (see main.ts)
  for (let slot = 0; slot < options.workers; slot += 1) fork(slot);
  return await done;
}
