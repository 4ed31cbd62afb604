import { defineConfig } from 'tsup';

// The published build: ESM + bundled .d.ts per entry, dependencies external. Inside the
// workspace `exports` point at src/ (no build in the dev loop); pnpm pack/publish swaps in
// `publishConfig.exports`, which point here. `shapes` is the browser's entry (a bundler takes
// only the chunks it reaches); the OpenAPI builder reads description.md beside its file.
export default defineConfig({
  entry: { index: 'src/index.ts', shapes: 'src/shapes.ts', openapi: 'src/openapi/index.ts' },
  format: ['esm'],
  platform: 'neutral',
  target: 'es2022',
  // Declarations emitted without a second type check: the root `typecheck` checks these
  // sources (and `release` runs it first).
  dts: { compilerOptions: { noCheck: true } },
  clean: true,
  sourcemap: false,
  outDir: 'dist',
  onSuccess: 'cp src/openapi/description.md dist/description.md',
});
