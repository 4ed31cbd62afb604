import { defineConfig } from 'tsup';

// One ESM bundle per entry, the npm dependencies bundled in too: a start reads a few files
// instead of resolving and loading hundreds of modules, most of a start's CPU otherwise
// (bench/results/startup.md). tsup bundles every import but the package's
// dependencies and `external`, so the bundled libraries are devDependencies and `external` names
// what stays outside, loaded from the node_modules installed next to the app: the native SQLite
// driver (both majors, driver.ts), the package's only dependency and optional dependency, and
// pg's optional native binding, never installed (pg itself is bundled, in a chunk only a
// PostgreSQL deployment loads). test/runtime-dependencies.test.ts holds the two lists together.
export default defineConfig({
  entry: ['src/main.ts', 'src/cli.ts'],
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  sourcemap: true,
  external: ['better-sqlite3', 'better-sqlite3-13', 'pg-native'],
  // CommonJS dependencies call require() for Node built-ins; an ESM bundle has no require unless
  // it is created here.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
});
