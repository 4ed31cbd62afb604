import { defineConfig } from 'vitest/config';
import { unitProject } from '../test-support/unit-project.ts';

// Two tiers (see docs/architecture.md): `unit` checks the harness in process (the report's
// arithmetic, the load's schedule, the CPU counters); `e2e` runs each peer as the bench does,
// on a port with a real SQLite file, and checks it answers as the server does (a peer that
// answered wrongly would make the bench's ratios lie).
export default defineConfig({
  test: {
    // The default reporter prints a test's console output only when that test fails.
    silent: 'passed-only',
    projects: [
      unitProject({ include: ['src/**/*.test.ts'], exclude: ['src/peers/**'] }),
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['src/peers/**/*.test.ts'],
          testTimeout: 30_000,
        },
      },
    ],
  },
});
