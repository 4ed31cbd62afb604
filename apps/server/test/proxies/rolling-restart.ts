import { randomBytes } from 'node:crypto';
import { Agent, request } from 'node:http';
import { freePort } from '../support/free-port.ts';
import { adminQuery } from '../support/postgres.ts';
import { NO_RATE_LIMITS, type SpawnedServer, spawnServer } from '../support/spawn-server.ts';
import { type ProxyKind, type ProxyProcess, shippedConfig, startProxy } from './proxy-process.ts';

// A rolling restart as an operator runs one: two instances on one PostgreSQL behind a proxy,
// clients creating unique plants through it without a pause, and each instance in turn sent
// SIGTERM, waited for, started again and waited for until the proxy sends it creates again.

/** Clients creating plants at once, each on a keep-alive connection to the proxy. */
const CLIENTS = 8;
/** A bound on the load: the restarts end it far sooner; reached before they end, it fails the run. */
const MAX_CREATES = 300_000;

export interface RollingRestartOptions {
  readonly proxy: ProxyKind;
  /** A schema of its own on the shared PostgreSQL (createTestSchema's URL). */
  readonly databaseUrl: string;
  /** The proxy's configuration, given the shipped one (a measurement may change it). */
  readonly config?: (shipped: string) => string;
  /** Settings of both instances, over the ones the deploy files name. */
  readonly env?: Readonly<Record<string, string>>;
  /** Ends the run (its load, then its processes) when aborted: the test's, on its timeout. */
  readonly signal?: AbortSignal;
}

export interface RollingRestartResult {
  /** Creates answered 200. */
  readonly acknowledged: number;
  /** Answers other than 200 and failed requests, by status or error code. */
  readonly clientErrors: Readonly<Record<string, number>>;
  /** Acknowledged ids missing from the table (or stored with another name). */
  readonly lost: readonly number[];
  /** Stored ids no client saw acknowledged (a create whose client saw an error). */
  readonly unacknowledgedStored: number;
  /** The exit codes of the two SIGTERMs, in order. */
  readonly exitCodes: readonly (number | string)[];
  /** Creates served by each restarted instance (so the proxy did send to it again). */
  readonly servedAfterRestart: readonly number[];
  /** The proxy's log, for a failure's message. */
  readonly proxyLog: string;
}

/** The deploy files' settings of an instance (see the header of deploy/nginx.conf, haproxy.cfg). */
export function instanceEnv(
  port: number,
  options: Pick<RollingRestartOptions, 'databaseUrl' | 'env'>,
  token: string,
) {
  return {
    PORT: String(port),
    DATABASE_URL: options.databaseUrl,
    PLANT_STORE_TOKENS: token,
    TRUST_PROXY: '127.0.0.1',
    SHUTDOWN_DELAY_MS: '5000',
    KEEP_ALIVE_TIMEOUT_SECONDS: '65',
    LOG_LEVEL: 'info', // one line per request: how the test sees a restarted instance serve
    ...NO_RATE_LIMITS, // one token at full speed on purpose
    ...options.env,
  };
}

/** Creates served by `server` so far (its request log lines). */
function servedCreates(server: SpawnedServer): number {
  return server.output().match(/"route":"\/plants","status":200/g)?.length ?? 0;
}

/**
 * Runs the rolling restart and reports what the clients saw and what the table holds. The
 * caller asserts; this only measures (a measurement of other settings uses it too).
 */
export async function rollingRestart(
  options: RollingRestartOptions,
): Promise<RollingRestartResult> {
  const token = `proxies-${randomBytes(16).toString('base64url')}`;
  const ports = [await freePort(), await freePort()] as const;
  const envs = ports.map((port) => instanceEnv(port, options, token));
  const instances: SpawnedServer[] = envs.map((env) => spawnServer(env));
  let proxy: ProxyProcess | undefined;
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  let stopped = false; // ends the load (also when a step fails)
  try {
    await orAborted(Promise.all(instances.map((instance) => instance.ready)), options.signal);
    const listenPort = await freePort();
    proxy = await startProxy(options.proxy, listenPort, () => {
      const shipped = shippedConfig(options.proxy, listenPort, ports);
      return options.config ? options.config(shipped) : shipped;
    });
    const outcomes: CreateOutcome[] = [];
    let nextId = 1;
    const client = async () => {
      while (!stopped && !options.signal?.aborted && nextId <= MAX_CREATES) {
        const id = nextId++;
        outcomes.push(await createThroughProxy(proxy?.url ?? '', agent, token, id));
      }
    };
    let loadEnded = false;
    const clients = Promise.all(Array.from({ length: CLIENTS }, client)).finally(() => {
      loadEnded = true;
    });
    const serving = (instance: SpawnedServer, creates: number) => () => {
      if (loadEnded) throw new Error('the load reached its bound before the restarts ended');
      return servedCreates(instance) >= creates;
    };
    // Both instances serve through the proxy before the first restart.
    await until(() => instances.every((instance) => serving(instance, 1)()), options.signal);
    const exitCodes: (number | string)[] = [];
    const servedAfterRestart: number[] = [];
    for (const [slot, env] of envs.entries()) {
      const old = instances[slot] as SpawnedServer;
      old.child.kill('SIGTERM');
      exitCodes.push(await orAborted(old.exited, options.signal));
      const restarted = spawnServer(env);
      instances[slot] = restarted;
      await orAborted(restarted.ready, options.signal);
      // The operator's wait: the proxy sends creates to it again (haproxy: `rise` good checks;
      // nginx: its `fail_timeout` has passed).
      await until(serving(restarted, 10), options.signal);
      servedAfterRestart.push(servedCreates(restarted));
    }
    stopped = true;
    await orAborted(clients, options.signal);

    const rows = await adminQuery(options.databaseUrl, 'SELECT id::int AS id, name FROM plants');
    const stored = new Map(rows.map((row) => [Number(row.id), String(row.name)]));
    const clientErrors: Record<string, number> = {};
    const acknowledged = new Set<number>();
    for (const outcome of outcomes) {
      if ('status' in outcome && outcome.status === 200) acknowledged.add(outcome.id);
      else {
        const key = 'status' in outcome ? String(outcome.status) : outcome.error;
        clientErrors[key] = (clientErrors[key] ?? 0) + 1;
      }
    }
    return {
      acknowledged: acknowledged.size,
      clientErrors,
      lost: [...acknowledged].filter((id) => stored.get(id) !== `Plant ${id}`),
      unacknowledgedStored: [...stored.keys()].filter((id) => !acknowledged.has(id)).length,
      exitCodes,
      servedAfterRestart,
      proxyLog: `${proxy.output()}${proxy.errorLog()}`,
    };
  } finally {
    stopped = true;
    agent.destroy();
    await proxy?.stop();
    for (const instance of instances) instance.child.kill('SIGTERM');
    await Promise.all(instances.map((instance) => instance.exited));
  }
}

/** What a create through the proxy met: its status, or the error's code. */
export type CreateOutcome =
  | { readonly id: number; readonly status: number }
  | { readonly id: number; readonly error: string };

/**
 * POST /plants to `url` on `agent` (from `localAddress`, if given): the answer's status, or the
 * error's code. No deadline of its own: a create that hangs is the test timeout's.
 */
export function createThroughProxy(
  url: string,
  agent: Agent,
  token: string,
  id: number,
  options: { readonly localAddress?: string } = {},
): Promise<CreateOutcome> {
  const body = JSON.stringify({ id, name: `Plant ${id}` });
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const failed = (error: NodeJS.ErrnoException) =>
      resolve({ id, error: error.code ?? error.message });
    const outgoing = request(
      {
        host: hostname,
        port: Number(port),
        ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
        method: 'POST',
        path: '/plants',
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (incoming) => {
        incoming.resume();
        incoming.on('end', () => resolve({ id, status: incoming.statusCode ?? 0 }));
        incoming.on('error', failed);
      },
    );
    outgoing.on('error', failed);
    outgoing.end(body);
  });
}

/** Polls `condition` every 50 ms until it holds; throws once `signal` is aborted. */
async function until(condition: () => boolean, signal: AbortSignal | undefined): Promise<void> {
  while (!condition()) {
    signal?.throwIfAborted();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `promise`, or its rejection with the abort's reason once `signal` is aborted. */
function orAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      const abort = () => reject(signal.reason);
      if (signal.aborted) abort();
      else signal.addEventListener('abort', abort, { once: true });
    }),
  ]);
}
