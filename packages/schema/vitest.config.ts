import { defineConfig } from 'vitest/config';
import { unitProject } from '../../test-support/unit-project.ts';

// Two tiers (see docs/architecture.md): `unit` runs in-process beside the code, the contract
// check (`redocly diff` in a worker thread) included; `e2e` runs the tools that spawn processes
// (redocly lint) and the contract check's full matrix of breaking edits.
export default defineConfig({
  test: {
    // The default reporter prints a test's console output only when that test fails.
    silent: 'passed-only',
    projects: [
      unitProject({ include: ['src/**/*.test.ts', 'scripts/**/*.test.ts'] }),
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
