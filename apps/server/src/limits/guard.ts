import { ApiError } from '../http/api-error.ts';
import type { AppContext, AppMiddleware, RequestStep } from '../http/app-state.ts';
import { addressKey } from './key.ts';
import type { RateLimits } from './rate-limits.ts';

/**
 * The credential check wrapped in the rate limits, before the body is read: a refused
 * credential counts against its address (`ctx.ip`) and past the budget gets 429 instead of 401
 * (a valid credential is never counted or refused for its address); an accepted one takes a
 * request from its credential's limit, and the answer carries the `X-RateLimit-*` headers. A
 * 429 keeps the connection when the body has arrived already; else, as every refusal before
 * the body, it closes it (`http/error-responder.ts`).
 *
 * @example
 * const limits = await RateLimits.create(config.rateLimit);
 * const authenticate = rateLimited(limits, requireBearer(tokens));
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
 * Koa middleware limiting every request that carries no credential by its address (`ctx.ip`),
 * ANONYMOUS_PER_SECOND and ANONYMOUS_BURST: 429 in the Error shape with Retry-After past it. `needsCredential` tells the
 * requests the bearer check (and its own limits) will see.
 *
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
