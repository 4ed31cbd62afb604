import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/**
 * The URL of a server's start-up line ("… listening on http://…", plain text or a JSON log
 * line) in `output`, or undefined while it has not come.
 *
 * @example
 * listeningUrl('Plant Store is listening on http://127.0.0.1:3000 (plants.db)'); // 'http://127.0.0.1:3000'
 */
export function listeningUrl(output: string): string | undefined {
  return /listening on (http:\/\/[^\s"]+)/.exec(output)?.[1];
}

/**
 * Resolves with `child`'s exit code (or the signal that ended it) once it has exited and every
 * stdout or stderr stream still being read has closed: Node emits 'exit' before the last of
 * the output may have been read (its docs say the stdio streams might still be open), so a
 * check of the output on 'exit' alone can miss the final lines. A stream the caller destroyed
 * or paused (a test of a dead or stalled log pipe) is not waited for.
 *
 * @example
 * const code = await exitedWithOutput(child); // the output gathered so far is complete
 */
export function exitedWithOutput(child: ChildProcess): Promise<number | string> {
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => {
      const read = [child.stdout, child.stderr].filter(
        (stream) => stream !== null && !stream.closed && stream.readableFlowing === true,
      );
      void Promise.all(read.map((stream) => once(stream as NodeJS.EventEmitter, 'close'))).then(
        () => resolve(code ?? signal ?? 'unknown'),
      );
    });
  });
}

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
  const exited = exitedWithOutput(child).then(() => undefined);
  return {
    output: () => output,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
