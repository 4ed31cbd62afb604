import { defineConfig } from 'vitest/config';
import { unitProject } from '../../test-support/unit-project.ts';

// Two tiers (see docs/architecture.md): `unit` runs in process, with no socket, port or child
// process: the client sends through an in-process fetch (test/support/recording-fetch.ts) and
// waits on fake timers or an injected sleep. `e2e` runs the real server and the packed packages
// as a consumer installs them, and checks on a real socket that the wire carries what that
// fetch records (test/e2e/wire.test.ts).
export default defineConfig({
  test: {
    // The default reporter prints a test's console output only when that test fails.
    silent: 'passed-only',
    projects: [
      unitProject({
        include: [
          'src/**/*.test.ts',
          'test/consumer-types/**/*.test.ts',
          'test/release/**/*.test.ts',
          'test/support/**/*.test.ts',
        ],
      }),
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          // Each worker keeps its module cache between files: five of the files import the
          // server's test support (the whole server with it), which loads once per worker.
          isolate: false,
          // The server build the tests start (`spawnServer`), made once for the run.
          globalSetup: ['@plant-store/server/testing/server-build-setup'],
          // Beside the server's e2e tier (turbo runs both at once): the consumer's install waits
          // on I/O.
          maxWorkers: 2,
          // After the unit project (vitest runs projects with different maxWorkers in groups).
          sequence: { groupOrder: 1 },
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
