#!/usr/bin/env node
// The `plant-store` command: runs the built CLI (dist/cli.js, written by `pnpm build` and
// shipped by `pnpm artifact`). A committed file rather than a bin pointing into dist/, so that
// installs can link it before anything is built.
import { runCli } from '../dist/cli.js';

process.exitCode = await runCli(process.argv.slice(2), process);
