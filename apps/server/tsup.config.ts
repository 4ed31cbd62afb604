import { cpSync } from 'node:fs';
import { defineConfig } from 'tsup';
import { ensureDocsAssets } from './src/docs/build-docs-assets.ts';
import { SOURCE_ASSETS_FOLDER } from './src/docs/docs-assets.ts';

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
  // The API reference's files (the /docs page, its renderer script, /openapi.json) travel with
  // the build, each beside its .br and .gz copies, so the production install needs no
  // @scalar/api-reference (and its ~150 MB of dependencies) and compresses nothing at run time:
  // the server sends them from dist/assets/ with koa-send (docs/serve-docs-assets.ts). They are
  // compressed once into the source tree's folder (again only when one changes), then copied.
  onSuccess: async () => {
    await ensureDocsAssets(SOURCE_ASSETS_FOLDER);
    cpSync(SOURCE_ASSETS_FOLDER, 'dist/assets', { recursive: true });
  },
  // CommonJS dependencies bundled with the workspace packages (e.g. yaml) call require() for
  // Node built-ins; an ESM bundle has no require unless it is created here.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
});
