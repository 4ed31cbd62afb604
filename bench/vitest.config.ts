import { defineConfig } from 'vitest/config';

// The bench's own checks: the peers' conformance over real HTTP and SQLite, and the report's
// arithmetic. Fast (no load is generated here).
export default defineConfig({
  test: {
    // The default reporter prints a test's console output only when that test fails.
    silent: 'passed-only',
    // Worker threads that keep their module cache between files: the files load the same
    // modules, and each worker loads them once.
    pool: 'threads',
    isolate: false,
    include: ['src/**/*.test.ts'],
    testTimeout: 10_000,
  },
});
