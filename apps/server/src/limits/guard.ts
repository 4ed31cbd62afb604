import { ApiError } from '../http/api-error.ts';
import type { AppContext, RequestStep } from '../http/app-state.ts';
import { addressKey } from './key.ts';
import type { RateLimits } from './rate-limits.ts';
import { settle } from './shared-counts.ts';

/**
 * The credential check in the rate limits, before the body is read: a refused credential counts
 * against its address (429 past the budget, not 401); an accepted one against its credential.
 * An address known to be past its budget gets the 429 before any token lookup.
 */
export function rateLimited(limits: RateLimits, authenticate: RequestStep): RequestStep {
  const counted = (ctx: AppContext) =>
    settle(limits.consumeCredential(ctx.state.consumer ?? ''), (headers) => {
      for (const name in headers) ctx.res.setHeader(name, headers[name] ?? '');
    });
  const refused = (ctx: AppContext, error: unknown) => {
    if (!(error instanceof ApiError && error.kind === 'unauthorized')) throw error;
    return settle(limits.recordAuthFailure(addressKey(ctx.ip)), () => {
      throw error;
    });
  };
  return function limitedAuthentication(ctx: AppContext) {
    limits.refuseSpentAddress(addressKey(ctx.ip));
    let checked: void | Promise<void>;
    try {
      checked = authenticate(ctx);
    } catch (error) {
      return refused(ctx, error);
    }
    if (checked instanceof Promise) {
      return checked.then(
        () => counted(ctx),
        (error: unknown) => refused(ctx, error),
      );
    }
    return counted(ctx);
  };
}
