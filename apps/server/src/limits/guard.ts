import { ApiError } from '../http/api-error.ts';
import type { RequestStep } from '../http/app-state.ts';
import { addressKey } from './key.ts';
import type { RateLimits } from './rate-limits.ts';

/** Addresses whose limiter key is remembered; past this many the memory starts afresh. */
const MAX_REMEMBERED_ADDRESSES = 10_000;

/**
 * The credential check `authenticate` wrapped in the rate limits, as one step:
 * - before it, a client address that used up its refused-credential attempts gets 429 without
 *   its credential being looked at; a 401 from the check counts one attempt against the address
 *   (`ctx.ip`, which honours TRUST_PROXY_HOPS);
 * - after it, the request counts against its credential's own limit (`ctx.state.consumer`).
 * Both run before the body is read.
 *
 * @example
 * const limits = await RateLimits.create(config.rateLimit);
 * const authenticate = rateLimited(limits, requireBearer(tokens));
 */
export function rateLimited(limits: RateLimits, authenticate: RequestStep): RequestStep {
  // Clients send many requests from one address: its key is worked out once, not per request.
  const keys = new Map<string, string>();
  const keyOf = (ip: string): string => {
    let key = keys.get(ip);
    if (key === undefined) {
      if (keys.size >= MAX_REMEMBERED_ADDRESSES) keys.clear();
      key = addressKey(ip);
      keys.set(ip, key);
    }
    return key;
  };
  return async function limitedAuthentication(ctx) {
    const address = keyOf(ctx.ip);
    await limits.checkAddress(address);
    try {
      await authenticate(ctx);
    } catch (error) {
      if (error instanceof ApiError && error.kind === 'unauthorized') {
        await limits.recordAuthFailure(address);
      }
      throw error;
    }
    await limits.consumeCredential(ctx.state.consumer ?? '');
  };
}
