#!/usr/bin/env node
// The `plant-store` command-line tool: `plant-store tokens create|list|revoke`, `plant-store backup` (see USAGE).
import { runCli } from './auth/tokens-cli.ts';
import { runsAsProgram } from './program.ts';

// What bin/plant-store.js calls: `runCli(process.argv.slice(2), process)`.
export { runCli };

// Started as the program (`node dist/cli.js`; bin/plant-store.js calls runCli itself).
if (runsAsProgram(import.meta.url)) process.exitCode = await runCli(process.argv.slice(2), process);
