import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** The API reference's files, each built beside a `.br` and a `.gz` copy. */
export const DOCS_ASSET_FILES = {
  page: 'docs.html',
  script: 'api-reference.js',
  document: 'openapi.json',
} as const;
export type DocsAsset = keyof typeof DOCS_ASSET_FILES;

/**
 * Where the reference page and its script are served: plain routes beside the contract (the
 * document is the contract's `getOpenApiDocument`, at `/openapi.json`).
 */
export const DOCS_PATHS = { page: '/docs', script: '/docs/assets/api-reference.js' } as const;

export const ENCODED_SUFFIXES = ['.br', '.gz'] as const;

/** Each file's version: 16 hex digits of its SHA-256. */
export const MANIFEST_FILE = 'manifest.json';
const DocsManifest = z.object({
  hashes: z.record(z.enum(Object.keys(DOCS_ASSET_FILES) as [DocsAsset]), z.string()),
});
export type DocsManifest = z.infer<typeof DocsManifest>;

/** The source tree's build of the files: a cache, not `dist/`, which a `pnpm build` empties. */
export const SOURCE_ASSETS_FOLDER = fileURLToPath(
  new URL('../../node_modules/.cache/docs-assets/', import.meta.url),
);

/** `dist/assets/` beside the built `main.js`, else {@link SOURCE_ASSETS_FOLDER}. */
export function docsAssetsFolder(): string {
  const built = fileURLToPath(new URL('./assets/', import.meta.url));
  return existsSync(join(built, MANIFEST_FILE)) ? built : SOURCE_ASSETS_FOLDER;
}

/** The manifest of `folder`, or undefined when it is missing or incomplete. */
export function readDocsManifest(folder: string): DocsManifest | undefined {
  try {
    return DocsManifest.parse(JSON.parse(readFileSync(join(folder, MANIFEST_FILE), 'utf8')));
  } catch {
    return undefined;
  }
}
