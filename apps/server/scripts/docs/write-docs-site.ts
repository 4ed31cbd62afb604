import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SOURCE_ASSETS_FOLDER } from '../../src/docs/docs-assets.ts';
import { ensureDocsAssets } from './build-docs-assets.ts';
import {
  DocsBuildConfigError,
  LOCAL_SERVER_URL,
  readDocsBuildConfig,
} from './docs-build-config.ts';
import { writeDocsSite } from './docs-site.ts';

// `pnpm docs:build [folder] [--server-url <url>]`: writes the static API reference to
// apps/server/dist-docs (or the folder given), ready to publish, pointing at PUBLIC_API_URL.
try {
  const config = readDocsBuildConfig();
  const folder = resolve(
    config.folder ?? fileURLToPath(new URL('../../dist-docs', import.meta.url)),
  );
  // The script and its compressed copies: built once, then copied (compressed again only when
  // the renderer package changes).
  await ensureDocsAssets(SOURCE_ASSETS_FOLDER);
  const files = writeDocsSite(folder, {
    serverUrl: config.serverUrl,
    assets: SOURCE_ASSETS_FOLDER,
  });
  console.log(`wrote the API reference to ${folder}: ${files.join(', ')}`);
  console.log(
    config.serverUrl === undefined
      ? `its server is ${LOCAL_SERVER_URL} (set PUBLIC_API_URL or --server-url for the public address)`
      : `its server is ${config.serverUrl}`,
  );
} catch (error) {
  if (!(error instanceof DocsBuildConfigError)) throw error;
  console.error(`docs:build: ${error.message}`);
  process.exitCode = 2;
}
