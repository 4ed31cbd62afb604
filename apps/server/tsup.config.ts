import { defineConfig } from 'tsup';

// One ESM bundle per entry, the npm dependencies bundled in too: a start reads a few files
// instead of resolving and loading some 300 modules, which costs about as much CPU again as the
// rest of a start (bench/results/startup.md). Left outside, loaded from the node_modules
// installed next to the app: the native SQLite driver (both majors, driver.ts) and pg with its
// optional native binding, which only a PostgreSQL deployment loads.
export default defineConfig({
  entry: ['src/main.ts', 'src/cli.ts'],
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  sourcemap: true,
  noExternal: [/./],
  external: ['better-sqlite3', 'better-sqlite3-13', 'pg', 'pg-native'],
  // CommonJS dependencies call require() for Node built-ins; an ESM bundle has no require unless
  // it is created here.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
});
