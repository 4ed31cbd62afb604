import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/auth/tokens-cli.ts';
import { serverEntry } from './server-entry.ts';

const APP_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What a `plant-store` run printed, and its exit status. */
export interface CliRun {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the real `plant-store` command line (this run's build of `src/cli.ts`) as a child process
 * with `env` added to a minimal environment (no PLANT_STORE_TOKENS unless given).
 *
 * @example
 * const run = await runCliProcess(['tokens', 'create', '--name', 'acme'], { DATABASE_URL: file });
 * const token = run.stdout.trim();
 */
export function runCliProcess(
  args: readonly string[],
  env: Record<string, string>,
): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [serverEntry('cli'), ...args],
      { cwd: APP_ROOT, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : (error as { code?: unknown }).code;
        resolve({ status: typeof code === 'number' ? code : -1, stdout, stderr });
      },
    );
  });
}

/**
 * Runs the `plant-store` command in this process (the same `runCli` the binary calls) with
 * the store settings read from `env` alone, collecting what it prints.
 *
 * @example
 * const run = await runCliInProcess(['tokens', 'list'], { DATABASE_URL: file });
 */
export async function runCliInProcess(
  args: readonly string[],
  env: Record<string, string>,
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const status = await runCli([...args], {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env,
  });
  return { status, stdout, stderr };
}
