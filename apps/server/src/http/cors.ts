import koaCors from '@koa/cors';
import type { Router } from '@koa/router';
import { RATE_LIMIT_HEADERS } from '@plant-store/schema';
import type { Context } from 'koa';
import type { AppMiddleware, AppState } from './app-state.ts';

/**
 * CORS (`@koa/cors`) for an allow-list of origins; a preflight for a method the path lacks falls
 * through to the router's 404/405, so the library's default `Allow-Methods` list promises no
 * method a path does not have. No credentials (the library's default): the API takes bearer
 * tokens only.
 */
export function cors(allowedOrigins: readonly string[], router: Router<AppState>): AppMiddleware {
  const allowed = new Set(allowedOrigins);
  return koaCors({
    origin: (ctx: Context) => {
      const origin = ctx.get('origin');
      if (!allowed.has(origin)) return '';
      if (ctx.method === 'OPTIONS') {
        const wanted = ctx.get('access-control-request-method').toUpperCase();
        if (wanted !== '' && !router.match(ctx.path, wanted).route) return '';
      }
      return origin;
    },
    allowHeaders: ['Authorization', 'Content-Type', 'X-Request-Id'],
    // The rate-limit headers too: the client paces itself on them, in a browser as well.
    exposeHeaders: [
      'X-Request-Id',
      'Retry-After',
      'WWW-Authenticate',
      'Allow',
      ...Object.values(RATE_LIMIT_HEADERS),
    ],
    maxAge: 600,
  });
}
