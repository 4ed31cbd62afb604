import { defineConfig } from 'vitest/config';

// Two tiers (see docs/architecture.md): `unit` runs in-process beside the code; `e2e` runs the
// tools that spawn processes (redocly).
export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['src/**/*.test.ts'], testTimeout: 10_000 },
      },
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
