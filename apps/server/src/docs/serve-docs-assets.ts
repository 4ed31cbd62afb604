import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contract, RESPONSE_MEDIA_TYPES, type Route } from '@plant-store/schema';
import { StartupError } from '../config.ts';
import type { AppContext, AppMiddleware } from '../http/app-state.ts';
import { PAGE_SECURITY_HEADERS } from '../http/page-security-headers.ts';
import {
  DOCS_ASSET_FILES,
  type DocsAsset,
  docsAssetsFolder,
  ENCODED_SUFFIXES,
  readDocsManifest,
} from './docs-assets.ts';

/** A versioned URL (`?v=<hash>`) never changes content: browsers keep it a year unasked. */
export const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';
/** Any other: kept, but asked again each time (a 304 while unchanged). */
export const REVALIDATE_CACHE = 'public, no-cache';

/** The routes whose answer is a file of the API reference. */
export type DocsAssetRoute = 'getDocs' | 'getDocsScript' | 'getOpenApiDocument';
const ROUTE_ASSETS: Readonly<Record<DocsAssetRoute, DocsAsset>> = {
  getDocs: 'page',
  getDocsScript: 'script',
  getOpenApiDocument: 'document',
};

/** Thrown at start when the folder lacks a file (a build that did not finish): one line. */
export class DocsAssetsMissingError extends StartupError {
  override readonly name = 'DocsAssetsMissingError';
}

/**
 * Koa middleware for each route of the API reference's files (`around` of the contract
 * router: it answers, the route's handler is not called). Each file the build wrote into
 * `folder`, and its `.br` and `.gz` copies, is read from disk once, here, into one buffer that
 * every response sends (Koa's `ctx.body`): the `.br` copy when the request accepts it (brotli
 * first, as a browser's `gzip, deflate, br, zstd` prefers), else the `.gz` copy, else the file
 * itself. Nothing is compressed, copied or held per request, and a connection that stops
 * reading holds its socket and a reference to that shared buffer, no copy of it. Streaming from
 * disk instead (koa-send) cost 5–7 ms of CPU per GET of the 4.3 MB script in 64 KiB chunks and
 * ~300 KiB per stalled reader; bigger chunks cost less CPU and more memory per stalled reader
 * (docs/operations.md has the figures). Each answer carries a weak ETag of its content (304 on
 * a matching `If-None-Match`), `Vary: Accept-Encoding` and a cache policy: a year, immutable,
 * for the script at its versioned URL; revalidate for the page, the document and any other
 * URL. The page carries the page security headers (a self-only CSP). Checks at once that every
 * file is there.
 *
 * @example
 * contractRouter(contract, handlers, { …, around: serveDocsAssets(docsAssetsFolder()) });
 */
export function serveDocsAssets(
  folder: string = docsAssetsFolder(),
): Record<DocsAssetRoute, AppMiddleware> {
  const manifest = readDocsManifest(folder);
  const missing = Object.values(DOCS_ASSET_FILES)
    .flatMap((file) => [file, ...ENCODED_SUFFIXES.map((suffix) => `${file}${suffix}`)])
    .filter((file) => !existsSync(join(folder, file)));
  if (manifest === undefined || missing.length > 0) {
    throw new DocsAssetsMissingError(
      `the API reference files are not built in ${folder} (missing: ${manifest === undefined ? 'manifest.json ' : ''}${missing.join(' ')}): run \`pnpm --filter @plant-store/server build:assets\`, or build the server`,
    );
  }
  const serve = (route: DocsAssetRoute): AppMiddleware => {
    const asset = ROUTE_ASSETS[route];
    const file = join(folder, DOCS_ASSET_FILES[asset]);
    const copies = { br: readFileSync(`${file}.br`), gzip: readFileSync(`${file}.gz`) };
    const identity = readFileSync(file);
    const hash = manifest.hashes[asset];
    const { responseType = 'json' }: Route = contract[route];
    const cacheControl = (ctx: AppContext) =>
      asset === 'script' && ctx.query.v === hash ? IMMUTABLE_CACHE : REVALIDATE_CACHE;
    return async function sendDocsAsset(ctx) {
      // `fresh` compares only for a 2xx (the status is 404 until a body is set).
      ctx.status = 200;
      ctx.response.etag = `W/"${hash}"`;
      ctx.set('Cache-Control', cacheControl(ctx));
      if (responseType === 'html') ctx.set(PAGE_SECURITY_HEADERS);
      ctx.vary('Accept-Encoding');
      if (ctx.fresh) {
        ctx.status = 304;
        return;
      }
      ctx.type = RESPONSE_MEDIA_TYPES[responseType];
      // Each encoding asked against identity alone: asked together, the first one the client
      // lists would win ties, and a browser lists gzip before br.
      const encoding = (['br', 'gzip'] as const).find(
        (candidate) => ctx.acceptsEncodings(candidate, 'identity') === candidate,
      );
      if (encoding !== undefined) ctx.set('Content-Encoding', encoding);
      ctx.body = encoding === undefined ? identity : copies[encoding];
    };
  };
  return {
    getDocs: serve('getDocs'),
    getDocsScript: serve('getDocsScript'),
    getOpenApiDocument: serve('getOpenApiDocument'),
  };
}
