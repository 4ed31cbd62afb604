import type { ChildProcess } from 'node:child_process';

/** A child process's output and its end, as `watchChild` follows them. */
export interface WatchedChild {
  /** What the process wrote to stdout and stderr so far, in the order it arrived. */
  output(): string;
  /** Resolves once the process has exited. */
  readonly exited: Promise<void>;
  /** Sends SIGTERM unless the process has already ended; resolves once it has exited. */
  stop(): Promise<void>;
}

/**
 * Gathers what `child` (spawned with stdout and stderr piped) writes, and follows its exit.
 *
 * @example
 * const watched = watchChild(spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] }));
 * await watched.stop();
 */
export function watchChild(child: ChildProcess): WatchedChild {
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    output: () => output,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
