import { randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import { connect, type Socket } from 'node:net';
import { contract } from '@plant-store/schema';
import { freePort } from '../support/free-port.ts';
import { type SpawnedServer, spawnServer } from '../support/spawn-server.ts';
import { type ProxyKind, type ProxyProcess, shippedConfig, startProxy } from './proxy-process.ts';
import { type CreateOutcome, createThroughProxy, instanceEnv } from './rolling-restart.ts';

// Issue 33's attack on the shipped proxies: from one address, many connections that each ask
// for the API reference's script (4.3 MB without Accept-Encoding) and never read it, while a
// client on another address creates plants through the same proxy. Linux routes all of
// 127.0.0.0/8 to loopback, so the two parties differ only by their source address.

/** The attacker's and the legitimate client's source addresses. */
export const ATTACKER_ADDRESS = '127.0.0.1';
export const CLIENT_ADDRESS = '127.0.0.2';
/** Stalled readers, all opened at once. */
export const STALLED_READERS = 2_500;
/** A connection attempt of the attack that has not connected by then is dropped. */
const CONNECT_TIMEOUT_MS = 10_000;
/** Legitimate clients creating at once, each on a keep-alive connection to the proxy. */
const CLIENTS = 4;
/** How long they create after the attack has connected (they start with the attack). */
const LOAD_AFTER_ATTACK_MS = 10_000;
/** A bound on the creates, whatever the machine's speed. */
const MAX_CREATES = 50_000;
/** A create not answered within this is abandoned and counted as failed. */
export const CREATE_DEADLINE_MS = 5_000;

export interface StalledReadersOptions {
  readonly proxy: ProxyKind;
  /** A schema of its own on the shared PostgreSQL (createTestSchema's URL). */
  readonly databaseUrl: string;
}

export interface StalledReadersResult {
  /** Creates answered 200 within CREATE_DEADLINE_MS, and all creates sent. */
  readonly createsOk: number;
  readonly creates: number;
  /** Outcomes other than a timely 200, by status or error code. */
  readonly createErrors: Readonly<Record<string, number>>;
  /** The slowest create answered 200, in ms. */
  readonly worstCreateMs: number;
  /**
   * What each stalled reader had been sent when the load ended: `200` (the proxy accepted it
   * and streams the script to it), `429` (refused by the proxy's per-address limits), `closed`
   * (closed or reset with no answer), `pending` (connected, no answer), or an error code.
   */
  readonly attack: Readonly<Record<string, number>>;
  /** ms from the first attack connection to the last one settling (connected or failed). */
  readonly attackOpenMs: number;
  /** The proxy's log, for a failure's message. */
  readonly proxyLog: string;
}

/**
 * Two instances (the deploy files' settings, one PostgreSQL) behind `proxy` as shipped; the
 * attack and the creates as above; everything closed before it resolves. Only measures: the
 * caller asserts.
 */
export async function stalledReaders(
  options: StalledReadersOptions,
): Promise<StalledReadersResult> {
  const token = `stalled-${randomBytes(16).toString('base64url')}`;
  const ports = [await freePort(), await freePort()] as const;
  const instances: SpawnedServer[] = ports.map((port) =>
    spawnServer(instanceEnv(port, { workers: 1, databaseUrl: options.databaseUrl }, token)),
  );
  let proxy: ProxyProcess | undefined;
  const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
  const attackers: Attacker[] = [];
  try {
    await Promise.all(instances.map((instance) => instance.ready));
    const listenPort = await freePort();
    proxy = await startProxy(options.proxy, listenPort, (folder) =>
      shippedConfig(options.proxy, listenPort, ports, folder),
    );
    const target = { host: '127.0.0.1', port: listenPort };
    const url = `http://127.0.0.1:${listenPort}`;
    const warm = await create(url, agent, token, 0);
    if (!('status' in warm) || warm.status !== 200) {
      throw new Error(`the first create answered ${JSON.stringify(warm)}`);
    }

    const outcomes: CreateOutcome[] = [];
    let nextId = 1;
    let loadUntil = Number.POSITIVE_INFINITY; // set once the attack has connected
    const client = async () => {
      while (performance.now() < loadUntil && nextId <= MAX_CREATES) {
        outcomes.push(await create(url, agent, token, nextId++));
      }
    };
    const attackBegan = performance.now();
    for (let i = 0; i < STALLED_READERS; i++) attackers.push(stalledReader(target));
    const clients = Promise.all(Array.from({ length: CLIENTS }, client));
    await Promise.all(attackers.map((attacker) => attacker.settled));
    const attackOpenMs = performance.now() - attackBegan;
    loadUntil = performance.now() + LOAD_AFTER_ATTACK_MS;
    await clients;

    const attack: Record<string, number> = {};
    for (const attacker of attackers) {
      const key = attacker.state();
      attack[key] = (attack[key] ?? 0) + 1;
    }
    const createErrors: Record<string, number> = {};
    let createsOk = 0;
    let worstCreateMs = 0;
    for (const outcome of outcomes) {
      if ('status' in outcome && outcome.status === 200) {
        createsOk++;
        worstCreateMs = Math.max(worstCreateMs, outcome.ms);
      } else {
        const key = 'status' in outcome ? String(outcome.status) : outcome.error;
        createErrors[key] = (createErrors[key] ?? 0) + 1;
      }
    }
    return {
      createsOk,
      creates: outcomes.length,
      createErrors,
      worstCreateMs: Math.round(worstCreateMs),
      attack,
      attackOpenMs: Math.round(attackOpenMs),
      proxyLog: `${proxy.output()}${proxy.errorLog()}`,
    };
  } finally {
    for (const attacker of attackers) attacker.socket.destroy();
    agent.destroy();
    await proxy?.stop();
    for (const instance of instances) instance.child.kill('SIGTERM');
    await Promise.all(instances.map((instance) => instance.exited));
  }
}

interface Attacker {
  readonly socket: Socket;
  /** Resolves once it connected (and sent its GET) or failed. */
  readonly settled: Promise<void>;
  /** What it had been sent so far (see StalledReadersResult.attack). */
  state(): string;
}

/**
 * A connection from ATTACKER_ADDRESS that asks for the docs script and never reads: the socket
 * is paused, so Node takes its high-water mark (16 KiB) and stops reading, and the kernel's
 * receive buffer (its initial ~128 KiB: it grows only as the reader reads) fills.
 */
function stalledReader(target: { host: string; port: number }): Attacker {
  const socket = connect({ ...target, localAddress: ATTACKER_ADDRESS });
  socket.pause();
  let failure: string | undefined;
  let closed = false;
  // 'readable' with nothing to read is the end of the stream: closed with no answer. The
  // listener reads nothing, so the socket still stops reading at its high-water mark.
  socket.on('readable', () => {
    if (socket.readableLength === 0) closed = true;
  });
  const settled = new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      failure = 'connect timeout';
      socket.destroy();
    }, CONNECT_TIMEOUT_MS);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.write(`GET ${contract.getDocsScript.path} HTTP/1.1\r\nHost: plant-store\r\n\r\n`);
      resolve();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      failure ??= error.code ?? error.message;
      resolve();
    });
    socket.once('close', () => {
      clearTimeout(timer);
      closed = true;
      resolve();
    });
  });
  const state = () => {
    // The first bytes it was sent, read only now that the attack is over.
    const head: Buffer | null = socket.readableLength > 0 ? socket.read() : null;
    const status = head === null ? undefined : /^HTTP\/1\.1 (\d{3}) /.exec(head.toString('latin1'));
    if (status?.[1] !== undefined) return status[1];
    if (failure !== undefined) return failure;
    return closed ? 'closed' : 'pending';
  };
  return { socket, settled, state };
}

/** POST /plants from CLIENT_ADDRESS through the proxy, within CREATE_DEADLINE_MS. */
function create(url: string, agent: Agent, token: string, id: number): Promise<CreateOutcome> {
  return createThroughProxy(url, agent, token, id, {
    deadlineMs: CREATE_DEADLINE_MS,
    localAddress: CLIENT_ADDRESS,
  });
}
