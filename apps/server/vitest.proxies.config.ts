import { defineConfig } from 'vitest/config';

// `pnpm test:proxies`: the shipped deploy/nginx.conf and deploy/haproxy.cfg tested with the
// server, with Debian's nginx and haproxy (which `pnpm test` does not need: a machine with only
// Node runs that). Fails at once, saying what to install, when either is missing.
export default defineConfig({
  test: {
    // The default reporter prints a test's console output only when that test fails.
    silent: 'passed-only',
    name: 'proxies',
    include: ['test/proxies/**/*.test.ts'],
    // And the API reference files the servers send (the stalled readers ask for the script).
    globalSetup: [
      './test/proxies/require-proxies.ts',
      './test/support/postgres-global-setup.ts',
      './test/support/docs-assets-global-setup.ts',
      './test/support/server-build-global-setup.ts',
    ],
    // A hang detector: a scenario runs two to six server processes and a proxy.
    testTimeout: 300_000,
    hookTimeout: 60_000,
    // Scenarios one at a time: each runs two to six server processes and a proxy.
    fileParallelism: false,
  },
});
