import { defineConfig } from 'tsup';

// One ESM bundle per entry; the workspace's TypeScript packages are bundled in, npm
// dependencies stay external (installed next to the app).
export default defineConfig({
  entry: ['src/main.ts', 'src/cli.ts'],
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  sourcemap: true,
  noExternal: [/^@plant-store\//],
  // CommonJS dependencies bundled with the workspace packages (e.g. yaml) call require() for
  // Node built-ins; an ESM bundle has no require unless it is created here.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
});
