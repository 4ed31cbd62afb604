import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';

export interface ServerProcess {
  readonly pid: number;
  readonly url: string;
  /** The file the process's stdout and stderr go to (its log). */
  readonly logFile: string;
  /** Sends SIGTERM and resolves with the exit code once the process has ended. */
  stop(): Promise<number | string>;
}

const READY_TIMEOUT_MS = 30_000;

/**
 * Starts `node <args>` with exactly `env` (plus PATH), stdout and stderr appended to
 * `logFile`, at scheduling `priority` (a nice value; negative needs root), and resolves once
 * the process printed `listening on http://…` there.
 *
 * @example
 * const server = await startServerProcess(['dist/main.js'], env, '/tmp/server.log');
 * await server.stop();
 */
export async function startServerProcess(
  args: readonly string[],
  env: Record<string, string>,
  logFile: string,
  cwd: string,
  priority = 0,
): Promise<ServerProcess> {
  const fd = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, args, {
      cwd,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', fd, fd],
    });
  } finally {
    closeSync(fd);
  }
  const exited = new Promise<number | string>((resolve) => {
    child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`Could not start node ${args.join(' ')}`);
  if (priority !== 0) setPriority(pid, priority);
  const url = await waitForUrl(logFile, exited);
  return {
    pid,
    url,
    logFile,
    stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

async function waitForUrl(logFile: string, exited: Promise<number | string>): Promise<string> {
  let ended: number | string | undefined;
  exited.then((code) => {
    ended = code;
  });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const log = readFileSync(logFile, 'utf8');
    const url = /listening on (http:\/\/[^\s"]+)/.exec(log)?.[1];
    if (url !== undefined) return url;
    if (ended !== undefined) throw new Error(`Server exited (${ended}) before listening:\n${log}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`Server did not listen within ${READY_TIMEOUT_MS} ms (log: ${logFile})`);
}
