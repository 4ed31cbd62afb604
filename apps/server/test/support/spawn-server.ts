import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitedWithOutput, listeningUrl } from './child-output.ts';
import { serverEntry } from './server-entry.ts';

const APP_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Settings that turn both rate limits off, for a test that floods the server on purpose. */
export const NO_RATE_LIMITS = {
  RATE_LIMIT_PER_SECOND: '0',
  AUTH_FAILURES_PER_MINUTE: '0',
};

export interface SpawnedServer {
  readonly child: ChildProcess;
  /** Everything the process wrote to stdout so far. */
  output(): string;
  /** Resolves with the URL the server printed once it listens. */
  readonly ready: Promise<string>;
  /** Resolves with the exit code (or signal name) when the process ends and its output is read. */
  readonly exited: Promise<number | string>;
}

/**
 * Runs the real entry point (this run's build of `src/main.ts`, see `serverEntry`) as a child
 * process with `env` added to a minimal environment: how an operator runs the server, signals
 * included.
 *
 * @example
 * const server = spawnServer({ PORT: '0', DATABASE_URL: file, PLANT_STORE_TOKENS: token });
 * const url = await server.ready;
 */
export function spawnServer(
  env: Record<string, string>,
  options: {
    /** Run as this user and group (the caller must be root), e.g. to meet file permissions. */
    readonly user?: { readonly uid: number; readonly gid: number } | undefined;
    /** Run under `ulimit -n <descriptorLimit>` (through sh, which then execs the server). */
    readonly descriptorLimit?: number;
    /** A command that ends by running its arguments (the server), e.g. `unshare -m sh -c '… exec "$0" "$@"'`. */
    readonly wrapper?: readonly string[];
  } = {},
): SpawnedServer {
  const { user, descriptorLimit } = options;
  const node = [process.execPath, serverEntry('main')] as const;
  const wrapper =
    options.wrapper ??
    (descriptorLimit === undefined
      ? []
      : ['sh', '-c', `ulimit -n ${descriptorLimit} && exec "$0" "$@"`]);
  const [file = '', ...args] = [...wrapper, ...node];
  const child = spawn(file, args, {
    cwd: APP_ROOT,
    ...user,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = exitedWithOutput(child);
  const ready = new Promise<string>((resolve, reject) => {
    const check = () => {
      const url = listeningUrl(stdout);
      if (url !== undefined) resolve(url);
    };
    child.stdout?.on('data', check);
    exited.then((code) => reject(new Error(`server exited (${code}) before listening: ${stderr}`)));
  });
  // A test that expects the process to fail never awaits `ready`: keep that rejection handled.
  ready.catch(() => undefined);
  return { child, output: () => stdout + stderr, ready, exited };
}

/** A spawned server on its own SQLite file in a temporary folder (see `spawnFloodableServer`). */
export interface ServerInTempFolder {
  readonly server: SpawnedServer;
  readonly url: string;
  readonly databaseFile: string;
  /** Sends SIGTERM, waits for the exit and removes the folder. */
  stop(): Promise<void>;
}

/**
 * `spawnServer` on a new SQLite file in a new temporary folder named from `prefix`, accepting
 * `token`, with the rate limits off (for a test that floods it on purpose); resolves once it
 * listens.
 *
 * @example
 * const spawned = await spawnFloodableServer('plant-store-bombs-', token);
 * await fetch(`${spawned.url}/plants`, …);
 * await spawned.stop();
 */
export async function spawnFloodableServer(
  prefix: string,
  token: string,
): Promise<ServerInTempFolder> {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  const databaseFile = join(folder, 'plants.db');
  const server = spawnServer({
    PORT: '0',
    DATABASE_URL: databaseFile,
    PLANT_STORE_TOKENS: token,
    ...NO_RATE_LIMITS,
  });
  const stop = async () => {
    server.child.kill('SIGTERM');
    await server.exited;
    rmSync(folder, { recursive: true, force: true });
  };
  try {
    return { server, url: await server.ready, databaseFile, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
