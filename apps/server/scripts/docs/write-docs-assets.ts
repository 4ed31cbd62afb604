import { cpSync } from 'node:fs';
import { resolve } from 'node:path';
import { DOCS_ASSET_FILES, SOURCE_ASSETS_FOLDER } from '../../src/docs/docs-assets.ts';
import { ensureDocsAssets } from './build-docs-assets.ts';

// `pnpm --filter @plant-store/server build:assets [folder]`: the API reference's files (the
// /docs page, its renderer script, /openapi.json), each with its .br and .gz copies, in the
// source tree's folder (for `pnpm dev`, the tests, `pnpm docs:build`), then copied into
// `folder` when given: `pnpm build` copies them into dist/assets/, beside the built main.js,
// so the production install needs no @scalar/api-reference (nor its many dependencies)
// and compresses nothing at run time. Only what changed since the last run is compressed again.
const { written } = await ensureDocsAssets(SOURCE_ASSETS_FOLDER);
console.log(
  written.length === 0
    ? `the API reference files in ${SOURCE_ASSETS_FOLDER} are up to date`
    : `wrote ${written.map((asset) => DOCS_ASSET_FILES[asset]).join(', ')} (with .br and .gz) to ${SOURCE_ASSETS_FOLDER}`,
);
const target = process.argv[2];
if (target !== undefined) {
  cpSync(SOURCE_ASSETS_FOLDER, resolve(target), { recursive: true });
  console.log(`copied them to ${resolve(target)}`);
}
