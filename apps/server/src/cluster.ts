import cluster, { type Worker } from 'node:cluster';
import { once } from 'node:events';
import type { ServerOptions } from 'node:http';
import { createServer, type Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import { SHUTDOWN_SIGNALS, stopAcceptingWhenQueueEmpty } from './http/graceful-shutdown.ts';
import { listenOn } from './listen.ts';
import { startMetricsServer } from './observability/metrics-listener.ts';
import { type ClusterWorkerRole, warnOnce } from './server.ts';

// WEB_CONCURRENCY > 1: a primary process forks that many HTTP workers (node:cluster). The
// primary listens on the port itself and hands each connection it accepts to the next serving
// worker (round-robin), which serves it; the primary serves no HTTP. It replaces a worker that
// dies. On SIGTERM/SIGINT/SIGHUP it shuts down as
// one process does: the workers drain (/readyz 503, everything else served) while the primary
// still accepts for SHUTDOWN_DELAY_MS; then it stops accepting, and once every accepted
// connection is at a worker, the workers finish their drain and exit. (Node's own cluster
// listener closes the connections it has accepted but not yet handed over when the last worker
// stops: clients met resets. That is why the primary listens itself.)

/** Tags this module's messages between the primary and its workers (others share the channel). */
const TAG = 'plant-store:cluster';

type ToPrimary = { readonly tag: typeof TAG; readonly type: 'hello' | 'ready' };
type ToWorker =
  | { readonly tag: typeof TAG; readonly type: 'role'; readonly slot: number; readonly url: string }
  // 'drain': SIGTERM reached the primary; 'stop': it accepts no more and handed over everything.
  | { readonly tag: typeof TAG; readonly type: 'connection' | 'drain' | 'stop' };

/** Whether `message` is this module's, of `type`. */
function isOurs(message: unknown, type: (ToPrimary | ToWorker)['type']): boolean {
  const tagged = message as Partial<{ tag: unknown; type: unknown }> | null | undefined;
  return tagged?.tag === TAG && tagged.type === type;
}

/** The callback of the primary's sends: a closed channel is then no 'error' event. */
const ignore = () => undefined;

/** First wait before a dead worker is replaced; it doubles with each death in a row. */
const RESTART_DELAY_MS = 250;
/** Longest wait before a dead worker is replaced. */
const MAX_RESTART_DELAY_MS = 30_000;
/** A worker that served this long before it died starts its slot's backoff afresh. */
const STABLE_MS = 30_000;
/**
 * How long the primary waits for its workers to exit once it has stopped accepting, before it
 * kills them: longer than a worker's own bound (the HTTP drain's 10 s, then the store's close).
 */
const STOP_TIMEOUT_MS = 30_000;

/**
 * A worker joining its cluster: asks the primary for its slot (named in its log lines) and the
 * URL it listens on. SIGTERM, SIGINT and SIGHUP sent straight to a worker are absorbed (systemd's
 * default KillMode and a terminal's Ctrl-C signal every process of the group): a worker drains
 * when its primary says so (before it serves, it exits at once), and its drain goes past the
 * readiness delay once the primary has handed over every connection (`handedOver`). A primary
 * that dies takes its workers with it (Node's cluster ends a worker whose channel closes).
 */
export function joinCluster(): Promise<ClusterWorkerRole & { serving(drain: () => void): void }> {
  const send = (message: ToPrimary) => {
    if (process.send === undefined) throw new Error('Not a cluster worker: no IPC channel');
    process.send(message);
  };
  for (const signal of SHUTDOWN_SIGNALS) process.on(signal, () => undefined);
  let drain: () => void = () => process.exit(0);
  let serve: (socket: Socket) => void = (socket) => socket.destroy();
  let allHandedOver: () => void = () => undefined;
  const handedOver = new Promise<void>((resolve) => {
    allHandedOver = resolve;
  });
  return new Promise((resolve) => {
    process.on('message', (message: unknown, socket: unknown) => {
      if (isOurs(message, 'connection') && socket) serve(socket as Socket);
      else if (isOurs(message, 'drain')) drain();
      else if (isOurs(message, 'stop')) {
        allHandedOver();
        drain(); // a worker that joined after the 'drain' hears only this
      } else if (isOurs(message, 'role')) {
        const { slot, url } = message as Extract<ToWorker, { type: 'role' }>;
        resolve({
          slot,
          url,
          handedOver,
          receive: (handler) => {
            serve = handler;
          },
          serving: (onDrain) => {
            drain = onDrain;
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
  /** SHUTDOWN_DELAY_MS: how long the primary still accepts after a signal, workers draining. */
  readonly shutdownDelayMs?: number;
}

/**
 * The primary process: listens on `host:port` (rejects with Node's error if it cannot: a port
 * in use), forks `workers` workers and keeps that many running, handing each connection it
 * accepts to the next worker that serves. A worker that dies before all of the first start
 * serve fails the start (exit code 1: a bad database URL — a replacement would only fail
 * again); later, a dead worker is replaced after a backoff (250 ms, doubling per death in a row
 * of its slot, at most 30 s). On SIGTERM, SIGINT or SIGHUP it shuts down in the steps below, as a
 * single server does; the result is 0 once all workers exited with 0, else 1.
 *
 * @example
 * process.exit(await runPrimary({ workers: 4, port, host, logger, onListening: console.log }));
 */
export async function runPrimary(options: PrimaryOptions): Promise<number> {
  const { logger } = options;
  const signalled = untilSignal(logger); // from now on a signal shuts down, never kills
  // Paused: the worker that gets a connection reads its request, not the primary.
  const listener = createServer({ pauseOnConnect: true });
  const url = await listenOn(listener, options.port, options.host);
  listener.on('error', warnOnce(logger));
  const metrics = await serveMetrics(options);
  const pool = new WorkerPool(options.workers, url, logger, options.onListening);
  listener.on('connection', (socket: Socket) => pool.handOff(socket));
  pool.start();

  const startFailed = await Promise.race([signalled.then(() => false), pool.startFailed]);
  const delayMs = startFailed ? 0 : (options.shutdownDelayMs ?? 0);
  // 1. No worker is replaced from now on. For SHUTDOWN_DELAY_MS the workers drain (/readyz
  //    503, everything else served) while the primary still accepts, so a balancer sees the
  //    503 before any connection is refused. Without a delay they hear of it in step 3.
  pool.drain(delayMs > 0);
  await delay(delayMs);
  // 2. New connections are refused, once those the kernel has queued were accepted (closing
  //    resets them; see http/graceful-shutdown.ts).
  await stopAcceptingWhenQueueEmpty(listener);
  // 3. Once every accepted connection is at a worker, they finish their drain and exit.
  await pool.handedOver();
  const failed = (await pool.stop(STOP_TIMEOUT_MS)) || startFailed;
  await metrics?.close().catch(() => undefined);
  logger.info({ failed }, 'all workers stopped');
  return failed ? 1 : 0;
}

/**
 * Resolves at the first SIGTERM, SIGINT or SIGHUP (a closing terminal, some supervisors), as
 * one process drains on each. Later ones are absorbed (Ctrl-C reaches the whole
 * process group, and a script runner may forward it too): the workers are stopping already.
 */
function untilSignal(logger: Logger): Promise<void> {
  return new Promise((resolve) => {
    let seen = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (!seen) logger.info({ signal }, 'shutting down the workers');
      seen = true;
      resolve();
    };
    for (const signal of SHUTDOWN_SIGNALS) process.on(signal, onSignal);
  });
}

/** With METRICS_PORT: the metrics of all workers added up, served by the primary. */
async function serveMetrics(options: PrimaryOptions) {
  if (!options.metrics) return undefined;
  const { clusterMetrics } = await import('./observability/cluster-metrics.ts');
  const server = await startMetricsServer(
    clusterMetrics(),
    options.metrics,
    options.logger,
    options.serverOptions ?? {},
  );
  options.logger.info({ metrics: `${server.url}/metrics` }, 'metrics of all workers');
  return server;
}

/** One place of the pool: its worker, if any, and that worker's state. */
interface Slot {
  worker: Worker | undefined;
  /** When its worker said it serves; unset until then. */
  servingSince: number | undefined;
  /** Connections sent to its worker whose send has not completed yet. */
  handing: Set<Socket>;
  /** Deaths in a row (the restart backoff). */
  deaths: number;
  restart: NodeJS.Timeout | undefined;
}

/** The workers: forks and replaces them, hands them connections, drains and stops them. */
class WorkerPool {
  private readonly slots: Slot[];
  /** Connections accepted while no worker serves (at the start, or all are being replaced). */
  private readonly waiting: Socket[] = [];
  private turn = 0;
  private started = false;
  private stopping = false;
  private failed = false;
  private onStartFailure: (failed: true) => void = () => undefined;
  /** Resolves with `true` if a worker of the first start dies before all serve. */
  readonly startFailed = new Promise<boolean>((resolve) => {
    this.onStartFailure = resolve;
  });

  constructor(
    count: number,
    private readonly url: string,
    private readonly logger: Logger,
    private readonly onListening: (url: string) => void,
  ) {
    this.slots = Array.from({ length: count }, () => ({
      worker: undefined,
      servingSince: undefined,
      handing: new Set<Socket>(),
      deaths: 0,
      restart: undefined,
    }));
  }

  start(): void {
    for (const slot of this.slots.keys()) this.fork(slot);
  }

  /**
   * Sends `socket` to the next serving worker; the worker gets its own descriptor and the
   * primary's copy is closed once sent. A send that fails is tried with another worker; with
   * none left it is closed. While none serves it waits (closed if stopping).
   */
  handOff(socket: Socket, tries = 0): void {
    const serving = this.slots.filter(
      (slot) => slot.worker?.isConnected() && slot.servingSince !== undefined,
    );
    const target = serving[this.turn++ % Math.max(serving.length, 1)];
    if (target?.worker === undefined) {
      if (this.stopping) socket.destroy();
      else this.waiting.push(socket);
      return;
    }
    if (tries >= serving.length) {
      socket.destroy(); // every worker failed to take it
      return;
    }
    target.handing.add(socket);
    const message: ToWorker = { tag: TAG, type: 'connection' };
    target.worker.send(message, socket, { keepOpen: true }, (error) => {
      if (!target.handing.delete(socket)) return; // its worker died: handed to another already
      if (error) this.handOff(socket, tries + 1);
      else socket.destroy();
    });
  }

  /** Replaces no worker from now on; with `tell`, every worker drains (/readyz answers 503). */
  drain(tell: boolean): void {
    this.stopping = true;
    for (const slot of this.slots) clearTimeout(slot.restart);
    for (const socket of this.waiting.splice(0)) socket.destroy();
    if (tell) this.tellAll({ tag: TAG, type: 'drain' });
  }

  /** Resolves once no send of a connection is pending (polled: it is a moment at most). */
  async handedOver(): Promise<void> {
    while (this.slots.some((slot) => slot.handing.size > 0)) await delay(10);
  }

  /**
   * Tells every worker that all connections are handed over (each finishes its drain and
   * exits), kills those still running after `timeoutMs`; resolves with whether any failed.
   */
  async stop(timeoutMs: number): Promise<boolean> {
    const running = this.running();
    this.tellAll({ tag: TAG, type: 'stop' });
    const killer = setTimeout(() => {
      this.logger.error('workers did not stop in time: killing them');
      this.failed = true;
      for (const worker of running) worker.process.kill('SIGKILL');
    }, timeoutMs);
    await Promise.all(running.map((worker) => worker.isDead() || once(worker, 'exit')));
    clearTimeout(killer);
    return this.failed;
  }

  private running(): Worker[] {
    return this.slots.flatMap((slot) => (slot.worker ? [slot.worker] : []));
  }

  private tellAll(message: ToWorker): void {
    for (const worker of this.running()) worker.send(message, ignore);
  }

  private fork(index: number): void {
    const slot = this.slots[index] as Slot;
    slot.restart = undefined;
    slot.servingSince = undefined;
    slot.handing = new Set();
    const worker = cluster.fork();
    slot.worker = worker;
    worker.on('message', (message: unknown) => {
      if (isOurs(message, 'hello')) this.greet(worker, index);
      else if (isOurs(message, 'ready')) this.serving(slot);
    });
    worker.once('exit', (code, signal) => this.exited(worker, index, code, signal));
  }

  /** A new worker's first message: its role, or (forked just before a stop) to stop. */
  private greet(worker: Worker, index: number): void {
    const reply: ToWorker = this.stopping
      ? { tag: TAG, type: 'stop' }
      : { tag: TAG, type: 'role', slot: index, url: this.url };
    worker.send(reply, ignore);
  }

  private serving(slot: Slot): void {
    slot.servingSince = Date.now();
    for (const socket of this.waiting.splice(0)) this.handOff(socket);
    if (this.started || !this.slots.every((s) => s.servingSince !== undefined)) return;
    this.started = true;
    this.logger.info({ workers: this.slots.length }, 'all workers serving');
    this.onListening(this.url);
  }

  /** A worker exited: its pending connections go to another; replaced unless stopping. */
  private exited(worker: Worker, index: number, code: number, signal: string): void {
    const slot = this.slots[index] as Slot;
    const since = slot.servingSince;
    slot.worker = undefined;
    slot.servingSince = undefined;
    const orphans = [...slot.handing];
    slot.handing.clear();
    for (const socket of orphans) this.handOff(socket);
    if (this.stopping) {
      if (code !== 0) this.failed = true;
      return;
    }
    this.logger.error(
      { worker: worker.process.pid, slot: index, code, signal },
      'worker exited unexpectedly',
    );
    if (!this.started) {
      this.logger.error('a worker failed to start: stopping');
      this.onStartFailure(true);
      return;
    }
    if (since !== undefined && Date.now() - since >= STABLE_MS) slot.deaths = 0;
    const wait = Math.min(RESTART_DELAY_MS * 2 ** slot.deaths, MAX_RESTART_DELAY_MS);
    slot.deaths += 1;
    this.logger.warn({ slot: index, delayMs: wait }, 'replacing the worker');
    slot.restart = setTimeout(() => this.fork(index), wait);
  }
}
