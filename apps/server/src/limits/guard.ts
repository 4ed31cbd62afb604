import { ApiError } from '../http/api-error.ts';
import type { AppContext, AppMiddleware, RequestStep } from '../http/app-state.ts';
import { addressKey } from './key.ts';
import type { RateLimits } from './rate-limits.ts';

/**
 * The credential check in the rate limits, before the body is read: a refused credential counts
 * against its address (429 past the budget, not 401); an accepted one against its credential.
 * @example
 * const authenticate = rateLimited(RateLimits.create(config.rateLimit), requireBearer(tokens));
 */
export function rateLimited(limits: RateLimits, authenticate: RequestStep): RequestStep {
  return async function limitedAuthentication(ctx: AppContext): Promise<void> {
    try {
      await authenticate(ctx);
    } catch (error) {
      if (error instanceof ApiError && error.kind === 'unauthorized') {
        await limits.recordAuthFailure(addressKey(ctx.ip));
      }
      throw error;
    }
    const headers = await limits.consumeCredential(ctx.state.consumer ?? '');
    if (headers) ctx.set(headers);
  };
}

/**
 * Limits the requests without a credential by their address; `needsCredential` tells those the
 * bearer check (with its own limits) will see.
 * @example
 * app.use(anonymousLimit(limits, (ctx) => ctx.method === 'POST' && ctx.path === '/plants'));
 */
export function anonymousLimit(
  limits: RateLimits,
  needsCredential: (ctx: AppContext) => boolean,
): AppMiddleware {
  return async function limitAnonymous(ctx, next) {
    if (!needsCredential(ctx)) await limits.consumeAnonymous(addressKey(ctx.ip));
    await next();
  };
}
