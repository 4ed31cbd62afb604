import { contract } from '@plant-store/schema';
import type { AppMiddleware } from '../http/app-state.ts';
import { loadRendererScript, type RendererScript } from './renderer-script.ts';

/** A versioned URL (`?v=<hash>`) never changes content: browsers keep it a year unasked. */
const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';
/** Any other URL of the script: kept, but asked again each time (a 304 while unchanged). */
const REVALIDATE_CACHE = 'public, no-cache';

/** The script's versioned URL, `path?v=<hash>`: the one {@link scriptCaching} keeps a year. */
export function versionedScriptUrl(script: RendererScript = loadRendererScript()): string {
  return `${contract.getDocsScript.path}?v=${script.hash}`;
}

/**
 * Koa middleware around the renderer script's route (koa-etag, koa-conditional-get and
 * koa-compress in one layer for this one response): an ETag and cache lifetime (`?v=<hash>`
 * immutable), 304 for a matching `If-None-Match`, else the precompressed bytes accepted.
 *
 * @example
 * contractRouter(contract, handlers, { …, around: { getDocsScript: scriptCaching(loadRendererScript) } });
 */
export function scriptCaching(script: () => RendererScript): AppMiddleware {
  return function cacheScript(ctx, next) {
    return next().then(() => {
      const current = script();
      if (ctx.status !== 200 || ctx.body !== current.text) return;
      ctx.etag = current.hash;
      ctx.set('Cache-Control', ctx.query.v === current.hash ? IMMUTABLE_CACHE : REVALIDATE_CACHE);
      ctx.vary('Accept-Encoding');
      if (ctx.fresh) {
        ctx.status = 304;
        return;
      }
      const encoding = ctx.acceptsEncodings('br', 'gzip', 'identity');
      if (encoding === 'br' || encoding === 'gzip') {
        ctx.body = current.encoded[encoding];
        ctx.set('Content-Encoding', encoding);
      }
    });
  };
}
