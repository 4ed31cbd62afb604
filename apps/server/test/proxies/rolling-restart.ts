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
/**
 * Bounds of the load: it stops at whichever comes first. The restarts end it sooner (a run
 * made 3 400–35 000 creates); a bound reached before they end fails the run.
 */
const MAX_CREATES = 300_000;
const MAX_LOAD_MS = 120_000;

export interface RollingRestartOptions {
  readonly proxy: ProxyKind;
  /** A schema of its own on the shared PostgreSQL (createTestSchema's URL). */
  readonly databaseUrl: string;
  /** The proxy's configuration, given the shipped one (a measurement may change it). */
  readonly config?: (shipped: string) => string;
  /** Settings of both instances, over the ones the deploy files name. */
  readonly env?: Readonly<Record<string, string>>;
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
  /** Per restart: ms from SIGTERM to exit, from the new start to listening, then to served. */
  readonly phases: readonly { stopMs: number; startMs: number; backMs: number }[];
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
    await Promise.all(instances.map((instance) => instance.ready));
    const listenPort = await freePort();
    proxy = await startProxy(options.proxy, listenPort, () => {
      const shipped = shippedConfig(options.proxy, listenPort, ports);
      return options.config ? options.config(shipped) : shipped;
    });
    const outcomes: CreateOutcome[] = [];
    let nextId = 1;
    const began = performance.now();
    const client = async () => {
      while (!stopped && nextId <= MAX_CREATES && performance.now() - began < MAX_LOAD_MS) {
        const id = nextId++;
        outcomes.push(
          await createThroughProxy(proxy?.url ?? '', agent, token, id, { deadlineMs: 30_000 }),
        );
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
    await until(() => instances.every((instance) => serving(instance, 1)()), 20_000);
    const exitCodes: (number | string)[] = [];
    const servedAfterRestart: number[] = [];
    const phases: { stopMs: number; startMs: number; backMs: number }[] = [];
    for (const [slot, env] of envs.entries()) {
      const old = instances[slot] as SpawnedServer;
      const signalled = performance.now();
      old.child.kill('SIGTERM');
      exitCodes.push(await old.exited);
      const started = performance.now();
      const restarted = spawnServer(env);
      instances[slot] = restarted;
      await restarted.ready;
      const listening = performance.now();
      // The operator's wait: the proxy sends creates to it again (haproxy: `rise` good checks;
      // nginx: its `fail_timeout` has passed).
      await until(serving(restarted, 10), 30_000);
      servedAfterRestart.push(servedCreates(restarted));
      phases.push({
        stopMs: Math.round(started - signalled),
        startMs: Math.round(listening - started),
        backMs: Math.round(performance.now() - listening),
      });
    }
    stopped = true;
    await clients;

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
      phases,
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

/** What a create through the proxy met: its status and time, or the error's code. */
export type CreateOutcome =
  | { readonly id: number; readonly status: number; readonly ms: number }
  | { readonly id: number; readonly error: string };

/**
 * POST /plants to `url` on `agent` (from `localAddress`, if given), failed with an error when no
 * answer came within `deadlineMs`.
 */
export function createThroughProxy(
  url: string,
  agent: Agent,
  token: string,
  id: number,
  options: { readonly deadlineMs: number; readonly localAddress?: string },
): Promise<CreateOutcome> {
  const body = JSON.stringify({ id, name: `Plant ${id}` });
  const { hostname, port } = new URL(url);
  const began = performance.now();
  return new Promise((resolve) => {
    const failed = (error: NodeJS.ErrnoException) => {
      clearTimeout(deadline);
      resolve({ id, error: error.code ?? error.message });
    };
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
        incoming.on('end', () => {
          clearTimeout(deadline);
          resolve({ id, status: incoming.statusCode ?? 0, ms: performance.now() - began });
        });
        incoming.on('error', failed);
      },
    );
    const deadline = setTimeout(
      () => outgoing.destroy(new Error(`no answer within ${options.deadlineMs} ms`)),
      options.deadlineMs,
    );
    outgoing.on('error', failed);
    outgoing.end(body);
  });
}

/** Polls `condition` every 50 ms; throws after `timeoutMs`. */
async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
