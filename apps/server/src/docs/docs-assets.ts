import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The files of the API reference the server sends, each written by the build beside a brotli
 * (`.br`) and a gzip (`.gz`) copy: the `/docs` page, its renderer script and `/openapi.json`.
 */
export const DOCS_ASSET_FILES = {
  page: 'docs.html',
  script: 'api-reference.js',
  document: 'openapi.json',
} as const;
export type DocsAsset = keyof typeof DOCS_ASSET_FILES;

/** The encodings written beside each file, by file suffix (brotli, gzip). */
export const ENCODED_SUFFIXES = ['.br', '.gz'] as const;

/** The list of what a folder holds: each file's version, 16 hex digits of its SHA-256. */
export const MANIFEST_FILE = 'manifest.json';
export interface DocsManifest {
  readonly hashes: Readonly<Record<DocsAsset, string>>;
}

/**
 * Where the source tree's build of these files lives (`pnpm --filter @plant-store/server
 * build:assets`, the test setup, `pnpm docs:build`): a cache folder, not `dist/`, which a
 * concurrent `pnpm build` empties.
 */
export const SOURCE_ASSETS_FOLDER = fileURLToPath(
  new URL('../../node_modules/.cache/docs-assets/', import.meta.url),
);

/**
 * The folder the running server sends the files from: `dist/assets/` beside the built
 * `main.js` (tsup writes it), else the source tree's {@link SOURCE_ASSETS_FOLDER}.
 *
 * @example
 * serveDocsAssets(docsAssetsFolder());
 */
export function docsAssetsFolder(): string {
  const built = fileURLToPath(new URL('./assets/', import.meta.url));
  return existsSync(join(built, MANIFEST_FILE)) ? built : SOURCE_ASSETS_FOLDER;
}

/** The manifest of `folder`, or undefined when it has none (not built, or another format). */
export function readDocsManifest(folder: string): DocsManifest | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(join(folder, MANIFEST_FILE), 'utf8'));
  } catch {
    return undefined;
  }
  const hashes = (parsed as { hashes?: Record<string, unknown> } | null)?.hashes;
  const complete = Object.keys(DOCS_ASSET_FILES).every(
    (asset) => typeof hashes?.[asset] === 'string',
  );
  return complete ? (parsed as DocsManifest) : undefined;
}
