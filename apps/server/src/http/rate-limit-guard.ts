import { ApiError } from '../api-error.ts';
import type { RateLimits } from '../rate-limit.ts';
import { addressKey } from '../rate-limit-key.ts';
import type { AppMiddleware } from './app-state.ts';

/** The middlewares an authenticated route runs around its bearer check. */
export interface AuthGuards {
  /** Runs before the credential is checked. */
  readonly beforeAuth: AppMiddleware;
  /** Runs once the credential is accepted (`ctx.state.consumer` is set). */
  readonly afterAuth: AppMiddleware;
}

/**
 * The rate limits as Koa middlewares around the bearer check:
 * - before it, a client address that used up its refused-credential attempts gets 429 without
 *   its credential being looked at; a 401 from the check counts one attempt against the address
 *   (`ctx.ip`, which honours TRUST_PROXY_HOPS);
 * - after it, the request counts against its credential's own limit.
 * Both run before the body is read.
 *
 * @example
 * const guards = rateLimitGuards(await RateLimits.create(config.rateLimit));
 * contractRouter(contract, handlers, { tokens, bodyLimitBytes, authGuards: guards });
 */
export function rateLimitGuards(limits: RateLimits): AuthGuards {
  return {
    beforeAuth: async function limitRefusedCredentials(ctx, next) {
      const address = addressKey(ctx.ip);
      await limits.checkAddress(address);
      try {
        await next();
      } catch (error) {
        if (error instanceof ApiError && error.kind === 'unauthorized') {
          await limits.recordAuthFailure(address);
        }
        throw error;
      }
    },
    afterAuth: async function limitCredential(ctx, next) {
      await limits.consumeCredential(ctx.state.consumer ?? '');
      await next();
    },
  };
}
