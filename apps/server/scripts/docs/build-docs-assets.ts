import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { contract, stringifyJson } from '@plant-store/schema';
import { buildOpenApiDocument } from '@plant-store/schema/openapi';
import {
  DOCS_ASSET_FILES,
  DOCS_PATHS,
  type DocsAsset,
  type DocsManifest,
  ENCODED_SUFFIXES,
  MANIFEST_FILE,
  readDocsManifest,
} from '../../src/docs/docs-assets.ts';
import { REFERENCE_TITLE, renderReferencePage } from './reference-page.ts';
import { readPackageScript } from './renderer-script.ts';

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/** Above this size brotli's quality 11 takes seconds longer than quality 9 (the renderer script). */
const BROTLI_MAX_QUALITY_BYTES = 1024 * 1024;

/** 16 hex digits of the SHA-256 of `bytes`: a file's version, in its URL and its ETag. */
export function contentHash(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 16);
}

/**
 * What the server sends for each asset, uncompressed: the renderer's standalone bundle, the
 * OpenAPI document as `/openapi.json` answers it (compact JSON, int64 bounds exact) and the
 * `/docs` page that embeds it and links the script by its versioned URL (`?v=<hash>`).
 */
export function docsAssetSources(): Record<DocsAsset, Buffer> {
  const script = Buffer.from(readPackageScript());
  const document = buildOpenApiDocument();
  const page = renderReferencePage({
    document,
    scriptUrl: versionedScriptUrl(contentHash(script)),
    documentUrl: contract.getOpenApiDocument.path,
    title: REFERENCE_TITLE,
  });
  return {
    page: Buffer.from(page),
    script,
    document: Buffer.from(stringifyJson(document)),
  };
}

/** The script's URL that never changes content (`path?v=<hash>`): cached for a year. */
function versionedScriptUrl(hash: string): string {
  return `${DOCS_PATHS.script}?v=${hash}`;
}

/** `bytes` as brotli (quality 11, or 9 for a file over 1 MiB) and gzip (level 9), in parallel. */
async function encode(bytes: Buffer): Promise<{ br: Buffer; gz: Buffer }> {
  const quality = bytes.length > BROTLI_MAX_QUALITY_BYTES ? 9 : constants.BROTLI_MAX_QUALITY;
  const [br, gz] = await Promise.all([
    brotli(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: quality,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    }),
    gzipped(bytes, { level: 9 }),
  ]);
  return { br, gz };
}

/**
 * Makes `folder` hold the current API reference files, each with its `.br` and `.gz` copies,
 * and their manifest; a file whose content is already there, with its copies, is left as it is
 * (not compressed again). Each file is written under a temporary name and renamed, so a server
 * reading the folder meanwhile sees the old or the new file, never a torn one. Resolves with
 * the manifest and the assets written.
 *
 * @example
 * await ensureDocsAssets('dist/assets'); // { manifest: { hashes: { script: '…' , … } }, written: ['page', …] }
 */
export async function ensureDocsAssets(
  folder: string,
): Promise<{ manifest: DocsManifest; written: DocsAsset[] }> {
  const sources = docsAssetSources();
  const previous = readDocsManifest(folder);
  const hashes = {} as Record<DocsAsset, string>;
  const written: DocsAsset[] = [];
  mkdirSync(folder, { recursive: true });
  const assets = Object.keys(DOCS_ASSET_FILES) as DocsAsset[];
  await Promise.all(
    assets.map(async (asset) => {
      const bytes = sources[asset];
      hashes[asset] = contentHash(bytes);
      if (isOnDisk(folder, asset, bytes)) return;
      const { br, gz } = await encode(bytes);
      const file = join(folder, DOCS_ASSET_FILES[asset]);
      writeAtomically(`${file}.br`, br);
      writeAtomically(`${file}.gz`, gz);
      writeAtomically(file, bytes);
      written.push(asset);
    }),
  );
  const manifest: DocsManifest = { hashes };
  if (written.length > 0 || !assets.every((asset) => previous?.hashes[asset] === hashes[asset])) {
    writeAtomically(join(folder, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  }
  return { manifest, written: written.sort() };
}

/** True when the identity file of `asset` is `bytes` and its copies are beside it. */
function isOnDisk(folder: string, asset: DocsAsset, bytes: Buffer): boolean {
  const file = join(folder, DOCS_ASSET_FILES[asset]);
  try {
    return (
      ENCODED_SUFFIXES.every((suffix) => existsSync(`${file}${suffix}`)) &&
      readFileSync(file).equals(bytes)
    );
  } catch {
    return false;
  }
}

function writeAtomically(path: string, content: string | Uint8Array): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, content);
  renameSync(temporary, path);
}
