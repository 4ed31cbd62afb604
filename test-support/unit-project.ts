/**
 * A package's `unit` vitest project: in process, in worker threads that keep their module cache
 * between files (the files load the same modules, and each worker loads them once), with
 * `settings` (its `include` at least) over these defaults. `defineConfig` checks the result.
 *
 * @example
 * projects: [unitProject({ include: ['src/**\/*.test.ts'] }), { extends: true, test: { name: 'e2e' } }]
 */
export function unitProject<Settings extends { include: string[] }>(settings: Settings) {
  const defaults = { name: 'unit', pool: 'threads', isolate: false, testTimeout: 10_000 } as const;
  return { extends: true as const, test: { ...defaults, ...settings } };
}
