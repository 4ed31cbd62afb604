#!/usr/bin/env node
// The `plant-store` command-line tool: `plant-store tokens create|list|revoke`, `plant-store backup` (see USAGE).
import { runCli } from './auth/tokens-cli.ts';
import { loadStoreConfig } from './config.ts';
import { runsAsProgram } from './program.ts';

type Io = Omit<Parameters<typeof runCli>[1], 'storeConfig'>;

/**
 * `plant-store <args>` on `io`'s streams, with the store `env` names (read only by a command
 * that opens it); resolves with the exit status.
 * @example
 * process.exitCode = await plantStore(['tokens', 'list'], process.env, process);
 */
export function plantStore(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  io: Io,
): Promise<number> {
  const { stdout, stderr } = io;
  return runCli(args, { stdout, stderr, storeConfig: () => loadStoreConfig(env) });
}

// Started as the program (`node dist/cli.js`; bin/plant-store.js calls plantStore itself).
if (runsAsProgram(import.meta.url)) {
  process.exitCode = await plantStore(process.argv.slice(2), process.env, process);
}
