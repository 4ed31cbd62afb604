import { mkdir, writeFile } from 'node:fs/promises';
import { defineConfig } from 'tsup';
import {
  encodeRendererScript,
  RENDERER_FILE,
  readPackageScript,
} from './src/docs/renderer-script.ts';

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
  // The API reference page's renderer (one self-contained browser script) travels with the
  // build, precompressed (brotli, gzip), so the production install needs no
  // @scalar/api-reference (and its ~150 MB of dependencies) and compresses nothing at run
  // time: docs/renderer-script.ts reads these files when they exist.
  onSuccess: async () => {
    const script = encodeRendererScript(readPackageScript());
    await mkdir('dist/assets', { recursive: true });
    await writeFile(`dist/assets/${RENDERER_FILE}`, script.text);
    await writeFile(`dist/assets/${RENDERER_FILE}.br`, script.encoded.br);
    await writeFile(`dist/assets/${RENDERER_FILE}.gz`, script.encoded.gzip);
  },
  // CommonJS dependencies bundled with the workspace packages (e.g. yaml) call require() for
  // Node built-ins; an ESM bundle has no require unless it is created here.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
});
