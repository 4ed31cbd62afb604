import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DOCS_ASSET_FILES,
  type DocsAsset,
  MANIFEST_FILE,
  readDocsManifest,
  SOURCE_ASSETS_FOLDER,
} from '../../src/docs/docs-assets.ts';
import { contentHash, docsAssetSources, ensureDocsAssets } from './build-docs-assets.ts';

// The test setup built SOURCE_ASSETS_FOLDER (`ensureDocsAssets`) before this file ran; these
// tests read it, and compress again only the small files of a copy.

const work = mkdtempSync(join(tmpdir(), 'plant-store-docs-assets-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const assets = Object.keys(DOCS_ASSET_FILES) as DocsAsset[];

describe('the built API reference files', () => {
  const sources = docsAssetSources();
  const manifest = readDocsManifest(SOURCE_ASSETS_FOLDER);

  it.each(assets)(
    'hold the %s as served, its hash in the manifest, and .br/.gz copies of it',
    (asset) => {
      const file = join(SOURCE_ASSETS_FOLDER, DOCS_ASSET_FILES[asset]);
      const identity = readFileSync(file);
      expect(identity.equals(sources[asset])).toBe(true);
      expect(manifest?.hashes[asset]).toBe(contentHash(identity));
      expect(brotliDecompressSync(readFileSync(`${file}.br`)).equals(identity)).toBe(true);
      expect(gunzipSync(readFileSync(`${file}.gz`)).equals(identity)).toBe(true);
      expect(readFileSync(`${file}.br`).length).toBeLessThan(identity.length / 3);
    },
  );

  it('link the script from the page by its versioned URL, and serve the exact int64 bounds', () => {
    expect(sources.page.toString()).toContain(
      `<script src="/docs/assets/api-reference.js?v=${manifest?.hashes.script}"></script>`,
    );
    expect(sources.document.toString()).toContain('"maximum":9223372036854775807');
    expect(sources.script.toString()).not.toContain('sourceMappingURL');
  });

  it('are not written again while up to date', async () => {
    const before = statSync(join(SOURCE_ASSETS_FOLDER, `${DOCS_ASSET_FILES.script}.br`)).mtimeMs;
    const { written, manifest: current } = await ensureDocsAssets(SOURCE_ASSETS_FOLDER);
    expect(written).toEqual([]);
    expect(current).toEqual(manifest);
    expect(statSync(join(SOURCE_ASSETS_FOLDER, `${DOCS_ASSET_FILES.script}.br`)).mtimeMs).toBe(
      before,
    );
  });

  it('rewrite only what changed or went missing, and a lost manifest', async () => {
    const folder = join(work, 'copy');
    cpSync(SOURCE_ASSETS_FOLDER, folder, { recursive: true });
    writeFileSync(join(folder, DOCS_ASSET_FILES.document), '{}');
    rmSync(join(folder, `${DOCS_ASSET_FILES.page}.gz`));
    rmSync(join(folder, MANIFEST_FILE));
    const { written } = await ensureDocsAssets(folder);
    expect(written).toEqual(['document', 'page']);
    expect(readDocsManifest(folder)).toEqual(manifest);
    expect(readFileSync(join(folder, DOCS_ASSET_FILES.document)).equals(sources.document)).toBe(
      true,
    );
    expect(
      gunzipSync(readFileSync(join(folder, `${DOCS_ASSET_FILES.page}.gz`))).equals(sources.page),
    ).toBe(true);
  });
});
