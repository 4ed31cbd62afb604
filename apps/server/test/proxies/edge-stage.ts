import { randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from '../support/free-port.ts';
import { type SpawnedServer, spawnServer } from '../support/spawn-server.ts';
import { type ProxyKind, type ProxyProcess, shippedConfig, startProxy } from './proxy-process.ts';
import { type RecordingRelay, startRecordingRelay } from './recording-relay.ts';
import { type CreateOutcome, createThroughProxy, instanceEnv } from './rolling-restart.ts';

// The stage of the attacks on the shipped proxies: two single-process instances (the deploy
// files' settings, one PostgreSQL) behind a proxy as shipped, legitimate clients on 127.0.0.2
// sending a fixed number of creates through it at a steady pace, and between the proxy and
// each instance a relay that records what the instance receives (recording-relay.ts). Linux
// routes all of 127.0.0.0/8 to loopback, so parties differ only by source address.

/** The legitimate client's source address (attackers use others, see edge-attacks.ts). */
export const CLIENT_ADDRESS = '127.0.0.2';
/** Legitimate clients creating at once, each on a keep-alive connection to the proxy. */
const CLIENTS = 4;
/** Each client starts a create at most this often: 20 creates a second in all. */
export const CREATE_EVERY_MS = 200;
/**
 * Creates the legitimate clients send during each measured attack: 5 s of their pace, within
 * an attack of 8 s when they are answered at once (each waits for its answer).
 */
export const CREATES_PER_MEASURE = 100;
/** The instances' refused-credential limit (per client address, a minute). */
export const AUTH_FAILURES_PER_MINUTE = 10;

export interface CreatesSummary {
  /** Creates answered 200, and all creates sent. */
  readonly ok: number;
  readonly sent: number;
  /** Outcomes other than a 200, by status or error code. */
  readonly errors: Readonly<Record<string, number>>;
}

export interface Measured<T> {
  readonly result: T;
  readonly creates: CreatesSummary;
}

export interface EdgeStage {
  readonly proxy: ProxyKind;
  /** Where the attackers connect (the proxy). */
  readonly target: { readonly host: string; readonly port: number };
  /** The credential the instances accept. */
  readonly token: string;
  /** The first instance's own URL (to compare an answer through the proxy with). */
  readonly instanceUrl: string;
  /**
   * What the instances received since the last `measure` began (or `resetReceived`): each
   * connection's bytes from the proxy; throws if more than the relays keep arrived.
   */
  received(): string[];
  resetReceived(): void;
  /** The proxy's resident memory now (nginx: master and workers), in MiB. */
  proxyResidentMb(): number;
  /**
   * Runs `work` while the legitimate clients send CREATES_PER_MEASURE creates, starting
   * together; resolves when both are done (the creates stop early if `work` fails).
   */
  measure<T>(work: () => Promise<T>): Promise<Measured<T>>;
  /** The proxy's log, for a failure's message. */
  log(): string;
  stop(): Promise<void>;
}

/** Starts the stage and warms the instances up through the proxy. */
export async function startEdgeStage(proxy: ProxyKind, databaseUrl: string): Promise<EdgeStage> {
  const token = `edge-${randomBytes(16).toString('base64url')}`;
  const ports = [await freePort(), await freePort()] as const;
  const instances: SpawnedServer[] = ports.map((port) =>
    // No request log. The refused-credential limit on (the other limits off: one credential
    // at full speed), to show it keys on the client the proxy names, not on the proxy.
    spawnServer(
      instanceEnv(
        port,
        {
          databaseUrl,
          env: { LOG_LEVEL: 'warn', AUTH_FAILURES_PER_MINUTE: String(AUTH_FAILURES_PER_MINUTE) },
        },
        token,
      ),
    ),
  );
  const relays: RecordingRelay[] = [];
  let running: ProxyProcess | undefined;
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  const stop = async () => {
    agent.destroy();
    await running?.stop();
    await Promise.all(relays.map((relay) => relay.close()));
    for (const instance of instances) instance.child.kill('SIGTERM');
    await Promise.all(instances.map((instance) => instance.exited));
  };
  try {
    const [instanceUrl = ''] = await Promise.all(instances.map((instance) => instance.ready));
    relays.push(...(await Promise.all(ports.map((port) => startRecordingRelay(port)))));
    const relayPorts = [relays[0]?.port ?? 0, relays[1]?.port ?? 0] as const;
    const listenPort = await freePort();
    running = await startProxy(proxy, listenPort, () =>
      shippedConfig(proxy, listenPort, relayPorts),
    );
    const url = running.url;
    let nextId = 1;
    const create = () =>
      createThroughProxy(url, agent, token, nextId++, { localAddress: CLIENT_ADDRESS });
    /** The legitimate clients' `count` creates, at their pace, unless `stopped()` first. */
    const load = async (count: number, stopped: () => boolean): Promise<CreateOutcome[]> => {
      const outcomes: CreateOutcome[] = [];
      let started = 0;
      const client = async () => {
        while (started < count && !stopped()) {
          started += 1;
          const began = performance.now();
          outcomes.push(await create());
          await delay(Math.max(0, CREATE_EVERY_MS - (performance.now() - began)));
        }
      };
      await Promise.all(Array.from({ length: CLIENTS }, client));
      return outcomes;
    };
    // Warm-up (JIT, pools, the proxy's upstream connections).
    for (let round = 0; round < 10; round++) {
      for (const outcome of await Promise.all(Array.from({ length: CLIENTS * 4 }, create))) {
        if (!('status' in outcome) || outcome.status !== 200) {
          throw new Error(`a warm-up create answered ${JSON.stringify(outcome)}`);
        }
      }
    }
    const resetReceived = () => {
      for (const relay of relays) relay.reset();
    };
    const measure = async <T>(work: () => Promise<T>): Promise<Measured<T>> => {
      resetReceived();
      let failed = false;
      const creates = load(CREATES_PER_MEASURE, () => failed);
      const result = await work().catch((error: unknown) => {
        failed = true;
        throw error;
      });
      return { result, creates: summarize(await creates) };
    };
    const proxyProcess = running;
    return {
      proxy,
      target: { host: '127.0.0.1', port: listenPort },
      token,
      instanceUrl,
      received: () => {
        if (relays.some((relay) => relay.overflowed())) {
          throw new Error('the instances received more than the relays keep (64 MiB each)');
        }
        return relays.flatMap((relay) => relay.received());
      },
      resetReceived,
      proxyResidentMb: () => proxyProcess.residentMb(),
      measure,
      log: () => `${proxyProcess.output()}${proxyProcess.errorLog()}`,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function summarize(outcomes: readonly CreateOutcome[]): CreatesSummary {
  const errors: Record<string, number> = {};
  let ok = 0;
  for (const outcome of outcomes) {
    if ('status' in outcome && outcome.status === 200) ok++;
    else {
      const key = 'status' in outcome ? String(outcome.status) : outcome.error;
      errors[key] = (errors[key] ?? 0) + 1;
    }
  }
  return { ok, sent: outcomes.length, errors };
}
