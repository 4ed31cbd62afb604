import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { contract } from '@plant-store/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { StartupError } from '../config.ts';

import {
  DOCS_ASSET_FILES,
  DOCS_PATHS,
  type DocsAsset,
  docsAssetsFolder,
  readDocsManifest,
} from './docs-assets.ts';
import {
  IMMUTABLE_CACHE,
  PAGE_CONTENT_SECURITY_POLICY,
  REVALIDATE_CACHE,
  serveDocsAssets,
} from './serve-docs-assets.ts';
import { servedDocument } from './served-document.ts';

const folder = docsAssetsFolder();
const manifest = readDocsManifest(folder);
// Each built file read once (the script is megabytes): the tests only read the folder.
const files = new Map<DocsAsset, Buffer>();
const identity = (asset: DocsAsset) => {
  const bytes = files.get(asset) ?? readFileSync(join(folder, DOCS_ASSET_FILES[asset]));
  files.set(asset, bytes);
  return bytes;
};
const hashOf = (asset: DocsAsset) => manifest?.hashes[asset] ?? 'not built';

const ASSETS = [
  ['script', DOCS_PATHS.script, 'text/javascript; charset=utf-8'],
  ['page', DOCS_PATHS.page, 'text/html; charset=utf-8'],
  ['document', contract.getOpenApiDocument.path, 'application/json; charset=utf-8'],
] as const;

let server: TestApp;

/** A GET whose body is read as sent (fetch would decode it, and ask for its own encodings). */
async function rawGet(
  path: string,
  headers: Record<string, string> = {},
  method: 'GET' | 'HEAD' = 'GET',
): Promise<{
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: Buffer;
}> {
  const response = await server.inject({ url: path, headers, method });
  return { status: response.statusCode, headers: response.headers, body: response.rawPayload };
}

describe('the API reference files, as static files', () => {
  beforeAll(async () => {
    server = await createTestApp();
  });
  afterAll(() => server.dispose());
  /** What the server sends for `asset`: the document names the origin it is asked at. */
  const sentOf = (asset: DocsAsset) => {
    const built = { identity: identity(asset), hash: hashOf(asset), encoded: () => Buffer.of() };
    return asset === 'document' ? servedDocument(built)(server.origin) : built;
  };

  describe.each(ASSETS)('%s (%s)', (asset, path, type) => {
    it.each([
      ['identity', undefined],
      ['identity', 'identity'],
      ['gzip', 'gzip, deflate'],
      ['br', 'br'],
      // A browser over HTTPS: brotli wins, though the browser lists gzip first.
      ['br', 'gzip, deflate, br, zstd'],
      ['br', 'gzip;q=0.5, br'],
      ['gzip', 'br;q=0, gzip'],
    ])(
      'is sent as %s for Accept-Encoding: %s, decoding to the built file',
      async (sent, accept) => {
        const response = await rawGet(
          path,
          accept === undefined ? {} : { 'accept-encoding': accept },
        );
        expect(response.status).toBe(200);
        expect(response.headers['content-type']).toBe(type);
        expect(response.headers['content-encoding']).toBe(sent === 'identity' ? undefined : sent);
        expect(response.headers.vary).toBe('Accept-Encoding');
        expect(response.headers.etag).toBe(`W/"${sentOf(asset).hash}"`);
        expect(Number(response.headers['content-length'])).toBe(response.body.length);
        const decode = {
          identity: (bytes: Buffer) => bytes,
          gzip: gunzipSync,
          br: brotliDecompressSync,
        };
        expect(
          decode[sent as keyof typeof decode](response.body).equals(sentOf(asset).identity),
        ).toBe(true);
        if (sent !== 'identity')
          expect(response.body.length).toBeLessThan(sentOf(asset).identity.length / 3);
      },
    );

    it('answers 304 without a body to a matching If-None-Match, 200 to another', async () => {
      const again = await rawGet(path, {
        'if-none-match': `W/"${sentOf(asset).hash}"`,
        'accept-encoding': 'br',
      });
      expect(again.status).toBe(304);
      expect(again.body.length).toBe(0);
      expect(again.headers.etag).toBe(`W/"${sentOf(asset).hash}"`);
      expect(again.headers['cache-control']).toBe(REVALIDATE_CACHE);
      // The strong form of the same tag matches too (If-None-Match compares weakly).
      const strong = await rawGet(path, {
        'if-none-match': `"${sentOf(asset).hash}"`,
      });
      expect(strong.status).toBe(304);
      const changed = await rawGet(path, { 'if-none-match': '"another"' });
      expect(changed.status).toBe(200);
      expect(changed.body.equals(sentOf(asset).identity)).toBe(true);
    });

    it('answers HEAD with the headers of GET and no body', async () => {
      const response = await rawGet(path, { 'accept-encoding': 'gzip' }, 'HEAD');
      expect(response.status).toBe(200);
      expect(response.headers['content-encoding']).toBe('gzip');
      expect(Number(response.headers['content-length'])).toBeGreaterThan(0);
      expect(response.headers.etag).toBe(`W/"${sentOf(asset).hash}"`);
      expect(response.body.length).toBe(0);
    });
  });

  it('caches the script a year, immutable, at its versioned URL only; everything else is revalidated', async () => {
    const hash = hashOf('script');
    const versioned = await rawGet(`${DOCS_PATHS.script}?v=${hash}`);
    expect(versioned.headers['cache-control']).toBe(IMMUTABLE_CACHE);
    expect(IMMUTABLE_CACHE).toBe('public, max-age=31536000, immutable');
    for (const url of [
      `${DOCS_PATHS.script}?v=0000`,
      DOCS_PATHS.script,
      DOCS_PATHS.page,
      contract.getOpenApiDocument.path,
    ]) {
      const response = await rawGet(url);
      expect(response.headers['cache-control'], url).toBe('public, no-cache');
    }
    // The page links the versioned URL.
    expect(identity('page').toString()).toContain(
      `<script src="${DOCS_PATHS.script}?v=${hash}"></script>`,
    );
  });

  it('sends the page with the page security headers, and the others without', async () => {
    const page = await rawGet(DOCS_PATHS.page, { 'accept-encoding': 'br' });
    expect(page.headers['content-security-policy']).toBe(PAGE_CONTENT_SECURITY_POLICY);
    expect(page.headers['x-frame-options']).toBe('DENY');
    const document = await rawGet(contract.getOpenApiDocument.path);
    expect(document.headers['content-security-policy']).toBeUndefined();
    expect(document.headers['x-content-type-options']).toBe('nosniff');
  });

  it('GET / points to the page and the document, as JSON', async () => {
    const response = await server.fetch('/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = (await response.json()) as { docs: string; openapi: string };
    expect(body).toEqual({ docs: '/docs', openapi: '/openapi.json' });
    for (const path of [body.docs, body.openapi]) {
      expect((await server.fetch(path)).status).toBe(200);
    }
  });
});

describe('serveDocsAssets', () => {
  it('refuses at once a folder without the built files, naming it and the command', () => {
    const empty = mkdtempSync(join(tmpdir(), 'plant-store-no-assets-'));
    try {
      expect(() => serveDocsAssets(empty)).toThrow(StartupError);
      expect(() => serveDocsAssets(empty)).toThrow(`not built in ${empty}: run`);
      expect(() => serveDocsAssets(empty)).toThrow(/build:assets/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
