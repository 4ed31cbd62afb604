import { defineConfig } from 'tsup';

// The published build, the same pattern as @plant-store/schema: ESM + bundled .d.ts,
// dependencies external. Inside the workspace `exports` point at src/; pnpm pack/publish swaps
// in `publishConfig.exports`, which point here.
export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm'],
  platform: 'neutral',
  target: 'es2022',
  // Declarations emitted without a second type check: the root `typecheck` checks these
  // sources (and `release` runs it first).
  dts: { compilerOptions: { noCheck: true } },
  clean: true,
  sourcemap: false,
  outDir: 'dist',
});
