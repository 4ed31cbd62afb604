#!/usr/bin/env node
import { runCli } from './auth/tokens-cli.ts';
// The `plant-store` command-line tool: `plant-store tokens create|list|revoke`, `plant-store backup` (see USAGE).
import { loadStoreConfig } from './config.ts';

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  storeConfig: () => loadStoreConfig(),
});
