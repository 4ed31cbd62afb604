import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DOCS_ASSET_FILES,
  docsAssetsFolder,
  MANIFEST_FILE,
  readDocsManifest,
  SOURCE_ASSETS_FOLDER,
} from './docs-assets.ts';

const folder = mkdtempSync(join(tmpdir(), 'plant-store-docs-assets-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const hashes = {
  page: '0123456789abcdef',
  script: 'fedcba9876543210',
  document: 'aaaabbbbccccdddd',
};

describe('readDocsManifest', () => {
  it("reads a folder's manifest: each file's hash", () => {
    writeFileSync(join(folder, MANIFEST_FILE), JSON.stringify({ hashes }));
    expect(readDocsManifest(folder)).toEqual({ hashes });
  });

  it('is undefined for a missing, unreadable or incomplete manifest', () => {
    const empty = mkdtempSync(join(folder, 'empty-'));
    expect(readDocsManifest(empty)).toBeUndefined();
    for (const text of ['not json', JSON.stringify({ hashes: { page: 'x' } }), '{}']) {
      const bad = mkdtempSync(join(folder, 'bad-'));
      writeFileSync(join(bad, MANIFEST_FILE), text);
      expect(readDocsManifest(bad), text).toBeUndefined();
    }
  });
});

describe('docsAssetsFolder', () => {
  it('is, in the source tree, the build cache the unit tier fills, holding every file', () => {
    expect(docsAssetsFolder()).toBe(SOURCE_ASSETS_FOLDER);
    const manifest = readDocsManifest(SOURCE_ASSETS_FOLDER);
    expect(Object.keys(manifest?.hashes ?? {}).sort()).toEqual(
      Object.keys(DOCS_ASSET_FILES).sort(),
    );
  });
});
