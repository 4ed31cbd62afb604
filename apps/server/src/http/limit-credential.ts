import type { RateLimits } from '../limits/rate-limits.ts';
import type { AppMiddleware } from './app-state.ts';

/**
 * The per-credential rate limit, after the bearer check (`ctx.state.consumer`): the
 * `X-RateLimit-*` headers on the answer, or the 429 with them.
 *
 * @example
 * router.post('/plants', requireBearer(tokens, limits), limitCredential(limits), handler);
 */
export function limitCredential(limits: RateLimits): AppMiddleware {
  return async function limitedCredential(ctx, next) {
    const headers = await limits.consumeCredential(ctx.state.consumer ?? '');
    if (headers) ctx.set(headers);
    await next();
  };
}
