#!/usr/bin/env node
// The `plant-store` command-line tool: `plant-store tokens create|list|revoke` (see USAGE).
import { loadStoreConfig } from './config.ts';
import { runCli } from './tokens/cli-commands.ts';

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  storeConfig: () => loadStoreConfig(),
});
