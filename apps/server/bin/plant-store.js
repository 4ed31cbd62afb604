#!/usr/bin/env node
// The `plant-store` command: runs the built CLI (dist/cli.js, written by `pnpm build` and
// shipped by `pnpm artifact`). A committed file rather than a bin pointing into dist/, so that
// installs can link it before anything is built.
import { plantStore } from '../dist/cli.js';

process.exitCode = await plantStore(process.argv.slice(2), process.env, process);
