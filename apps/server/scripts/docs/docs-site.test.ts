import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { parseJson, stringifyJson } from '@plant-store/schema';
import { buildOpenApiDocument } from '@plant-store/schema/openapi';
import { afterAll, expect, it } from 'vitest';
import {
  DOCS_ASSET_FILES,
  docsAssetsFolder,
  readDocsManifest,
} from '../../src/docs/docs-assets.ts';
import { LOCAL_SERVER_URL } from './docs-build-config.ts';
import { writeDocsSite } from './docs-site.ts';

// The built API reference files (the test setup builds them once): the site copies its script.
const assets = docsAssetsFolder();
const built = (suffix = '') => readFileSync(join(assets, `${DOCS_ASSET_FILES.script}${suffix}`));
const hash = readDocsManifest(assets)?.hashes.script ?? 'not built';

const work = mkdtempSync(join(tmpdir(), 'plant-store-docs-site-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The document embedded in a written index.html, read back exactly. */
function embeddedDocument(folder: string): { servers: unknown } {
  const html = readFileSync(join(folder, 'index.html'), 'utf8');
  const block = /<script id="api-reference" type="application\/json"[^>]*>([\s\S]*?)<\/script>/;
  return parseJson(block.exec(html)?.[1] ?? '') as { servers: unknown };
}

it('writes a self-contained static site: the page, its script and the document, linked relatively', () => {
  const folder = join(work, 'default');
  const files = writeDocsSite(folder);
  const script = `assets/api-reference.${hash}.js`;
  expect(files.sort()).toEqual([
    script,
    `${script}.br`,
    `${script}.gz`,
    'index.html',
    'openapi.json',
    'openapi.yaml',
  ]);
  const html = readFileSync(join(folder, 'index.html'), 'utf8');
  expect(html).toContain(`<script src="${script}"></script>`);
  expect(html).not.toMatch(/(src|href)="(https?:|\/\/|\/)/);
  const text = readFileSync(join(folder, script));
  expect(text.equals(built())).toBe(true);
  expect(text.toString()).not.toContain('sourceMappingURL');
  // Precompressed beside it (copied from the build), for hosts that serve .br/.gz as they are.
  expect(readFileSync(join(folder, `${script}.br`)).equals(built('.br'))).toBe(true);
  expect(brotliDecompressSync(readFileSync(join(folder, `${script}.br`))).equals(text)).toBe(true);
  expect(gunzipSync(readFileSync(join(folder, `${script}.gz`))).equals(text)).toBe(true);
  const written = readFileSync(join(folder, 'openapi.json'), 'utf8');
  // The same document as generated, but for `servers`; the int64 bounds exact in the file.
  const { servers, ...rest } = parseJson(written) as Record<string, unknown>;
  const { servers: _served, ...generated } = buildOpenApiDocument();
  expect(stringifyJson(rest)).toBe(stringifyJson(parseJson(stringifyJson(generated))));
  expect(written).toContain('"maximum": 9223372036854775807');
  expect(servers).toEqual([expect.objectContaining({ url: LOCAL_SERVER_URL })]);
  expect(embeddedDocument(folder).servers).toEqual(servers);
  expect(readFileSync(join(folder, 'openapi.yaml'), 'utf8')).toContain('operationId: createPlant');
});

it('writes the public API address into the servers of the page, openapi.json and openapi.yaml', () => {
  const folder = join(work, 'public');
  writeDocsSite(folder, { serverUrl: 'https://api.example.com' });
  const expected = [{ url: 'https://api.example.com', description: 'The Plant Store API' }];
  expect(embeddedDocument(folder).servers).toEqual(expected);
  expect(parseJson(readFileSync(join(folder, 'openapi.json'), 'utf8'))).toMatchObject({
    servers: expected,
  });
  expect(readFileSync(join(folder, 'openapi.yaml'), 'utf8')).toContain(
    'servers:\n  - url: https://api.example.com\n',
  );
});

it('removes the renderer script of an earlier build when it rewrites a folder', () => {
  const folder = join(work, 'rebuilt');
  writeDocsSite(folder);
  writeFileSync(join(folder, 'assets/api-reference.0123456789abcdef.js'), 'old');
  writeFileSync(join(folder, 'assets/api-reference.0123456789abcdef.js.gz'), 'old');
  writeDocsSite(folder);
  expect(readdirSync(join(folder, 'assets')).sort()).toEqual([
    `api-reference.${hash}.js`,
    `api-reference.${hash}.js.br`,
    `api-reference.${hash}.js.gz`,
  ]);
});
