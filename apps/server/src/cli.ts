#!/usr/bin/env node
// The `plant-store` command-line tool: `plant-store tokens create|list|revoke`, `plant-store backup` (see USAGE).
import { runCli } from './auth/tokens-cli.ts';
import { runsAsProgram } from './program.ts';

/**
 * `plant-store <args>` on `io`'s streams, with the store `env` names (read only by a command
 * that opens it); resolves with the exit status.
 * @example
 * process.exitCode = await plantStore(['tokens', 'list'], process.env, process);
 */
export function plantStore(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  { stdout, stderr }: Omit<Parameters<typeof runCli>[1], 'env'>,
): Promise<number> {
  return runCli(args, { stdout, stderr, env });
}

// Started as the program (`node dist/cli.js`; bin/plant-store.js calls plantStore itself).
if (runsAsProgram(import.meta.url)) {
  process.exitCode = await plantStore(process.argv.slice(2), process.env, process);
}
