import { randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from '../support/free-port.ts';
import { cpuMicros } from '../support/process-stats.ts';
import { type SpawnedServer, spawnServer } from '../support/spawn-server.ts';
import { type ProxyKind, type ProxyProcess, shippedConfig, startProxy } from './proxy-process.ts';
import { type CreateOutcome, createThroughProxy, instanceEnv } from './rolling-restart.ts';

// The stage of issue 41's attacks on the shipped proxies: two single-process instances (the
// deploy files' settings, one PostgreSQL) behind a proxy as shipped, a legitimate client on
// 127.0.0.2 creating plants through it at a steady pace, and the instances' CPU time from
// /proc (utime + stime: far less sensitive to the other work on a shared machine than wall
// time). Linux routes all of 127.0.0.0/8 to loopback, so parties differ only by source address.

/** The legitimate client's source address (attackers use others, see edge-attacks.ts). */
export const CLIENT_ADDRESS = '127.0.0.2';
/** Legitimate clients creating at once, each on a keep-alive connection to the proxy. */
const CLIENTS = 4;
/**
 * Each client starts a create at most this often: 20 creates a second in all (~160 in an
 * attack; their own CPU, ~1.4 ms each at this pace, is taken off an attack's cost, and the
 * fewer they are the less their spread hides it).
 */
export const CREATE_EVERY_MS = 200;
/** The instances' refused-credential limit (per client address, a minute). */
export const AUTH_FAILURES_PER_MINUTE = 10;
/** A create not answered within this is abandoned and counted as failed. */
export const CREATE_DEADLINE_MS = 5_000;

export interface CreatesSummary {
  /** Creates answered 200 within CREATE_DEADLINE_MS, and all creates sent. */
  readonly ok: number;
  readonly sent: number;
  /** Outcomes other than a timely 200, by status or error code. */
  readonly errors: Readonly<Record<string, number>>;
  /** The slowest create answered 200, in ms. */
  readonly worstMs: number;
}

export interface Measured<T> {
  readonly result: T;
  readonly creates: CreatesSummary;
  /**
   * The instances' CPU time over the window, in ms, and what is left of it once their idle CPU
   * over the window and the legitimate creates' own CPU are taken off (the control window's
   * CPU per ms × the window, or else the stage's idle CPU per ms × the window plus its CPU per
   * create × the creates): what the attack cost them.
   */
  readonly backendCpuMs: number;
  readonly backendCpuAboveIdleMs: number;
  readonly windowMs: number;
}

export interface MeasureOptions {
  /** The creates alone for this long first: the attack's CPU is compared with theirs. */
  readonly controlMs?: number;
  /** Each client's pace (CREATE_EVERY_MS by default). */
  readonly createEveryMs?: number;
}

export interface EdgeStage {
  readonly proxy: ProxyKind;
  /** The instances' CPU with no request (ms a second), and per create through the proxy (ms). */
  readonly idleCpuMsPerSecond: number;
  readonly cpuMsPerCreate: number;
  /** Where the attackers connect (the proxy). */
  readonly target: { readonly host: string; readonly port: number };
  /** The credential the instances accept. */
  readonly token: string;
  /** The first instance's own URL (to compare an answer through the proxy with). */
  readonly instanceUrl: string;
  /** The instances' CPU time so far (both processes), in µs. */
  backendCpuMicros(): number;
  /**
   * Runs `work` while the legitimate client creates, and for 300 ms after it ends (what the
   * instances still do for it counts); reports the creates and the instances' CPU. With
   * `controlMs`, the creates first run alone that long, and the instances' CPU per ms then
   * is what the attack's window is compared with (the CPU a create costs drifts with the
   * machine's other work: a control window just before is steadier than the stage's figures).
   */
  measure<T>(work: () => Promise<T>, options?: MeasureOptions): Promise<Measured<T>>;
  /** The proxy's log, for a failure's message. */
  log(): string;
  stop(): Promise<void>;
}

/** Starts the stage, warms the instances up and measures their CPU under the creates alone. */
export async function startEdgeStage(proxy: ProxyKind, databaseUrl: string): Promise<EdgeStage> {
  const token = `edge-${randomBytes(16).toString('base64url')}`;
  const ports = [await freePort(), await freePort()] as const;
  const instances: SpawnedServer[] = ports.map((port) =>
    // No request log: the creates' own CPU is then small beside what an attack may cost. The
    // refused-credential limit on (the other limits off: one credential at full speed), to
    // show it keys on the client X-Forwarded-For names, not on the proxy.
    spawnServer(
      instanceEnv(
        port,
        {
          workers: 1,
          databaseUrl,
          env: { LOG_LEVEL: 'warn', AUTH_FAILURES_PER_MINUTE: String(AUTH_FAILURES_PER_MINUTE) },
        },
        token,
      ),
    ),
  );
  let running: ProxyProcess | undefined;
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  const stop = async () => {
    agent.destroy();
    await running?.stop();
    for (const instance of instances) instance.child.kill('SIGTERM');
    await Promise.all(instances.map((instance) => instance.exited));
  };
  try {
    const [instanceUrl = ''] = await Promise.all(instances.map((instance) => instance.ready));
    const listenPort = await freePort();
    running = await startProxy(proxy, listenPort, () => shippedConfig(proxy, listenPort, ports));
    const url = running.url;
    const pids = instances.map((instance) => instance.child.pid ?? 0);
    const backendCpuMicros = () => pids.reduce((sum, pid) => sum + cpuMicros(pid), 0);
    let nextId = 1;
    const create = () =>
      createThroughProxy(url, agent, token, nextId++, {
        deadlineMs: CREATE_DEADLINE_MS,
        localAddress: CLIENT_ADDRESS,
      });
    /** The legitimate clients' creates until `stopped()` is true. */
    const load = async (
      stopped: () => boolean,
      everyMs = CREATE_EVERY_MS,
    ): Promise<CreateOutcome[]> => {
      const outcomes: CreateOutcome[] = [];
      const client = async () => {
        while (!stopped()) {
          const began = performance.now();
          outcomes.push(await create());
          await delay(Math.max(0, everyMs - (performance.now() - began)));
        }
      };
      await Promise.all(Array.from({ length: CLIENTS }, client));
      return outcomes;
    };
    // Warm-up (JIT, pools, the proxy's upstream connections), then the instances' idle CPU
    // per ms (no request), then their CPU per create (the creates alone).
    for (let round = 0; round < 50; round++) {
      for (const outcome of await Promise.all(Array.from({ length: CLIENTS * 4 }, create))) {
        if (!('status' in outcome) || outcome.status !== 200) {
          throw new Error(`a warm-up create answered ${JSON.stringify(outcome)}`);
        }
      }
    }
    const warmUntil = performance.now() + 2_000;
    await load(() => performance.now() > warmUntil);
    await delay(500);
    const idle = await cpuOver(backendCpuMicros, () => delay(2_000));
    const idleMicrosPerMs = idle.micros / idle.ms;
    let baselineCreates = 0;
    const alone = await cpuOver(backendCpuMicros, async () => {
      const began = performance.now();
      baselineCreates = (await load(() => performance.now() - began > 4_000)).length;
    });
    const microsPerCreate = (alone.micros - idleMicrosPerMs * alone.ms) / baselineCreates;

    const measure = async <T>(
      work: () => Promise<T>,
      options: MeasureOptions = {},
    ): Promise<Measured<T>> => {
      const { createEveryMs = CREATE_EVERY_MS } = options;
      let control: number | undefined; // the instances' CPU per ms under the creates alone
      if (options.controlMs !== undefined) {
        const { controlMs } = options;
        const alone = await cpuOver(backendCpuMicros, async () => {
          const began = performance.now();
          await load(() => performance.now() - began > controlMs, createEveryMs);
        });
        control = alone.micros / alone.ms;
      }
      let done = false;
      const began = performance.now();
      const cpuBefore = backendCpuMicros();
      const creates = load(() => done, createEveryMs);
      let result: T;
      try {
        result = await work();
        await delay(300);
      } finally {
        done = true;
      }
      const outcomes = await creates;
      const windowMs = performance.now() - began;
      const backendCpu = backendCpuMicros() - cpuBefore;
      return {
        result,
        creates: summarize(outcomes),
        backendCpuMs: Math.round(backendCpu / 1000),
        backendCpuAboveIdleMs: Math.round(
          (control === undefined
            ? backendCpu - idleMicrosPerMs * windowMs - microsPerCreate * outcomes.length
            : backendCpu - control * windowMs) / 1000,
        ),
        windowMs: Math.round(windowMs),
      };
    };
    const proxyProcess = running;
    return {
      proxy,
      idleCpuMsPerSecond: idleMicrosPerMs,
      cpuMsPerCreate: microsPerCreate / 1000,
      target: { host: '127.0.0.1', port: listenPort },
      token,
      instanceUrl,
      backendCpuMicros,
      measure,
      log: () => `${proxyProcess.output()}${proxyProcess.errorLog()}`,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The CPU `cpu()` counts over `work`, in µs, and the time it took, in ms. */
async function cpuOver(
  cpu: () => number,
  work: () => Promise<unknown>,
): Promise<{ micros: number; ms: number }> {
  const began = performance.now();
  const before = cpu();
  await work();
  return { micros: cpu() - before, ms: performance.now() - began };
}

function summarize(outcomes: readonly CreateOutcome[]): CreatesSummary {
  const errors: Record<string, number> = {};
  let ok = 0;
  let worstMs = 0;
  for (const outcome of outcomes) {
    if ('status' in outcome && outcome.status === 200) {
      ok++;
      worstMs = Math.max(worstMs, outcome.ms);
    } else {
      const key = 'status' in outcome ? String(outcome.status) : outcome.error;
      errors[key] = (errors[key] ?? 0) + 1;
    }
  }
  return { ok, sent: outcomes.length, errors, worstMs: Math.round(worstMs) };
}
