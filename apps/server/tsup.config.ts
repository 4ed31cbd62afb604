import { copyFile, mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { defineConfig } from 'tsup';

const require = createRequire(import.meta.url);

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
  // The API reference page's renderer (one self-contained browser script) travels with the
  // build, so the production install needs no @scalar/api-reference (and its ~150 MB of
  // dependencies): docs/renderer-script.ts reads this copy when it exists.
  onSuccess: async () => {
    const script = join(
      dirname(require.resolve('@scalar/api-reference')),
      'browser',
      'standalone.js',
    );
    await mkdir('dist/assets', { recursive: true });
    await copyFile(script, 'dist/assets/api-reference.standalone.js');
  },
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
});
