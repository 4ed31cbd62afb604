import koaCors from '@koa/cors';
import type { Router } from '@koa/router';
import { contract, RATE_LIMIT_HEADERS } from '@plant-store/schema';
import type { Context } from 'koa';
import type { AppMiddleware, AppState } from './app-state.ts';

/** How long a browser may cache a preflight answer (seconds). */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * Koa middleware for CORS (`@koa/cors`) limited to an allow-list of origins. A request from an
 * allowed origin gets `Access-Control-Allow-Origin` (and the response headers a client needs
 * exposed); a preflight `OPTIONS` from an allowed origin, for a method the path really has, is
 * answered 204 with the allowed methods and headers. Anything else passes through untouched:
 * no CORS headers, and a preflight falls through to the router's 404/405. Credentials (cookies)
 * are never allowed: the API authenticates with bearer tokens only.
 *
 * @example
 * app.use(cors(['https://app.example.com'], router));
 */
export function cors(allowedOrigins: readonly string[], router: Router<AppState>): AppMiddleware {
  const allowed = new Set(allowedOrigins);
  // The contract's methods, and HEAD wherever GET is (as @koa/router serves it).
  const methods = new Set(
    Object.values(contract).flatMap(({ method }) =>
      method === 'get' ? ['GET', 'HEAD'] : [method.toUpperCase()],
    ),
  );
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
    allowMethods: [...methods].sort(),
    allowHeaders: ['Authorization', 'Content-Type', 'X-Request-Id'],
    // The rate-limit headers too: the client paces itself on them, in a browser as well.
    exposeHeaders: [
      'X-Request-Id',
      'Retry-After',
      'WWW-Authenticate',
      'Allow',
      ...Object.values(RATE_LIMIT_HEADERS),
    ],
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
    credentials: false,
    keepHeadersOnError: true,
  });
}
