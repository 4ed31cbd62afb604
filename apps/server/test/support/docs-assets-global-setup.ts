import { ensureDocsAssets } from '../../scripts/docs/build-docs-assets.ts';
import { SOURCE_ASSETS_FOLDER } from '../../src/docs/docs-assets.ts';

/**
 * Vitest global setup, once per run before any test file: the API reference files every server
 * of the tests sends (`pnpm build:assets`). Compresses only what changed since the last run,
 * so no test compresses anything.
 */
export default async function setup(): Promise<void> {
  await ensureDocsAssets(SOURCE_ASSETS_FOLDER);
}
