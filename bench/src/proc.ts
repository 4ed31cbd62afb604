import { execFileSync, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

const TICKS_PER_SECOND =
  Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/**
 * CPU time a process has used so far (user + system, all its threads), in microseconds, from
 * fields 14 and 15 of `/proc/<pid>/stat`. Linux only.
 *
 * @example
 * const before = cpuMicros(server.pid); // … load … ; (cpuMicros(server.pid) - before) / requests
 */
export function cpuMicros(pid: number): number {
  return cpuMicrosOf(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/** `cpuMicros` of a `/proc/<pid>/stat` text. */
export function cpuMicrosOf(stat: string): number {
  // The command name (field 2) is in parentheses and may hold spaces: split after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  if (!Number.isFinite(ticks)) throw new Error(`Unreadable /proc stat: ${stat}`);
  return (ticks / TICKS_PER_SECOND) * 1e6;
}

/** A port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface ChildServer {
  readonly pid: number;
  /** Sends SIGTERM (SIGKILL after 15 s) and resolves with the exit code or signal. */
  stop(): Promise<number | string>;
}

/**
 * Starts `node <args>` in `cwd` with exactly `env` (plus PATH), stdout and stderr to `logFile`, and
 * resolves once something accepts connections on 127.0.0.1:`port`.
 *
 * @example
 * const server = await startServer(['dist/main.js'], { PORT: '3000' }, 3000, '/tmp/server.log', '/srv');
 */
export async function startServer(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  port: number,
  logFile: string,
  cwd: string,
): Promise<ChildServer> {
  const fd = openSync(logFile, 'a');
  const child = spawn(process.execPath, args, {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  let ended: number | string | undefined;
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      ended = code ?? signal ?? 'unknown';
      resolve(ended);
    });
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start node ${args.join(' ')}`);
  for (let waited = 0; !(await accepts(port)); waited += 50) {
    if (ended !== undefined || waited > 30_000) {
      child.kill('SIGKILL');
      throw new Error(`${args.join(' ')} did not listen (exit ${ended}); see ${logFile}`);
    }
    await sleep(50);
  }
  return {
    pid,
    async stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
