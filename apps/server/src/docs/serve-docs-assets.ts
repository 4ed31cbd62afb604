import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { StartupError } from '../config.ts';
import type { AppMiddleware } from '../http/app-state.ts';
import {
  DOCS_ASSET_FILES,
  type DocsAsset,
  docsAssetsFolder,
  readDocsManifest,
} from './docs-assets.ts';
import { requestOrigin, servedDocument } from './served-document.ts';

/** A versioned URL (`?v=<hash>`) never changes content. */
export const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';
export const REVALIDATE_CACHE = 'public, no-cache';

/** The page's: self only; styles also inline (Scalar injects `<style>` elements, not all with a nonce). */
export const PAGE_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE_SECURITY_HEADERS = {
  'Content-Security-Policy': PAGE_CONTENT_SECURITY_POLICY,
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/**
 * The middleware that answers each of the reference's files: the page and its script (plain
 * routes beside the contract, at `DOCS_PATHS`) and the document (the contract's
 * `getOpenApiDocument`, naming the origin it is asked at: served-document.ts). Each file and
 * its `.br`/`.gz` copies read once into shared buffers (a stalled reader holds no copy;
 * docs/operations.md), sent with a weak ETag, `Vary: Accept-Encoding` and a cache policy. An
 * unbuilt folder is a StartupError at once.
 */
export function serveDocsAssets(folder: string = docsAssetsFolder()) {
  // The build writes the manifest after the files it lists: with it, every file is there.
  const manifest = readDocsManifest(folder);
  if (manifest === undefined) {
    throw new StartupError(
      `the API reference files are not built in ${folder}: run \`pnpm --filter @plant-store/server build:assets\`, or build the server`,
    );
  }
  const serve = (asset: DocsAsset): AppMiddleware => {
    const file = join(folder, DOCS_ASSET_FILES[asset]);
    const copies = { br: readFileSync(`${file}.br`), gzip: readFileSync(`${file}.gz`) };
    const identity = readFileSync(file);
    const hash = manifest.hashes[asset];
    const built = { identity, hash, encoded: (encoding: 'br' | 'gzip') => copies[encoding] };
    // The document names the origin it is asked at as its server (served-document.ts).
    const copyFor = asset === 'document' ? servedDocument(built) : () => built;
    return async function sendDocsAsset(ctx) {
      const sent = copyFor(requestOrigin(ctx.protocol, ctx.host));
      // `fresh` compares only for a 2xx (the status is 404 until a body is set).
      ctx.status = 200;
      ctx.response.etag = `W/"${sent.hash}"`;
      const versioned = asset === 'script' && ctx.query.v === hash;
      ctx.set('Cache-Control', versioned ? IMMUTABLE_CACHE : REVALIDATE_CACHE);
      if (asset === 'page') ctx.set(PAGE_SECURITY_HEADERS);
      ctx.vary('Accept-Encoding');
      if (ctx.fresh) {
        ctx.status = 304;
        return;
      }
      ctx.type = DOCS_ASSET_FILES[asset]; // Koa's media type (and charset) for the file's name
      // Each encoding asked against identity alone: asked together, the first one the client
      // lists would win ties, and a browser lists gzip before br.
      const encoding = (['br', 'gzip'] as const).find(
        (candidate) => ctx.acceptsEncodings(candidate, 'identity') === candidate,
      );
      if (encoding !== undefined) ctx.set('Content-Encoding', encoding);
      ctx.body = encoding === undefined ? sent.identity : sent.encoded(encoding);
    };
  };
  return { page: serve('page'), script: serve('script'), document: serve('document') };
}
