import { ensureDocsAssets } from './build-docs-assets.ts';
import { DOCS_ASSET_FILES, SOURCE_ASSETS_FOLDER } from './docs-assets.ts';

// `pnpm --filter @plant-store/server build:assets`: the API reference's files for a server
// run from the source tree (`pnpm dev`, the tests), each with its .br and .gz copies; only
// what changed since the last run is compressed again. `pnpm build` writes its own into
// dist/assets/ (tsup.config.ts).
const { written } = await ensureDocsAssets(SOURCE_ASSETS_FOLDER);
console.log(
  written.length === 0
    ? `the API reference files in ${SOURCE_ASSETS_FOLDER} are up to date`
    : `wrote ${written.map((asset) => DOCS_ASSET_FILES[asset]).join(', ')} (with .br and .gz) to ${SOURCE_ASSETS_FOLDER}`,
);
