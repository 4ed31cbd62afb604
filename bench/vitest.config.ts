import { defineConfig } from 'vitest/config';

// The bench's own checks: the peers' conformance over real HTTP and SQLite, and the report's
// arithmetic. Fast (no load is generated here).
export default defineConfig({
  test: {
    // The default reporter prints a test's console output only when that test fails.
    silent: 'passed-only',
    include: ['src/**/*.test.ts'],
    testTimeout: 10_000,
  },
});
