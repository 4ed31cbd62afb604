import type { IncomingMessage } from 'node:http';
import { ApiError } from '../http/api-error.ts';
import type { RequestStep } from '../http/app-state.ts';
import { addressKey } from './key.ts';
import { type CredentialAllowance, type RateLimits, rateLimitHeaders } from './rate-limits.ts';

/** Addresses whose limiter key is remembered; past this many the memory starts afresh. */
const MAX_REMEMBERED_ADDRESSES = 10_000;

/**
 * A credential over its limit whose body is at most this long (by Content-Length) has it read
 * and dropped before the 429, so the connection stays open for the client's next request;
 * a longer or chunked body is not read, and the connection is closed after the answer.
 */
export const MAX_DRAINED_BODY_BYTES = 65_536;
/** The longest a 429 waits for such a body to arrive before answering and closing. */
export const DRAIN_TIMEOUT_MS = 1_000;

/**
 * The credential check `authenticate` wrapped in the rate limits, as one step:
 * - before it, a client address that used up its refused-credential attempts gets 429 without
 *   its credential being looked at; a 401 from the check counts one attempt against the address
 *   (`ctx.ip`, which honours TRUST_PROXY_HOPS);
 * - after it, the request takes one from its credential's token bucket (`ctx.state.consumer`),
 *   and the answer carries the `X-RateLimit-*` headers, whatever its status. A 429 for the
 *   credential keeps the connection when the body is small (see `MAX_DRAINED_BODY_BYTES`):
 *   a well-behaved client over its rate is no attacker, and reconnecting costs it more.
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
    let allowance: CredentialAllowance | undefined;
    try {
      allowance = await limits.consumeCredential(ctx.state.consumer ?? '');
    } catch (error) {
      if (error instanceof ApiError && error.kind === 'rateLimited') await drainSmallBody(ctx.req);
      throw error;
    }
    if (allowance !== undefined) ctx.set(rateLimitHeaders(allowance));
  };
}

/**
 * Reads and drops the rest of a request body of a known length up to `MAX_DRAINED_BODY_BYTES`,
 * for at most `DRAIN_TIMEOUT_MS`; returns at once for a longer, chunked or finished body.
 * Afterwards `req.complete` says whether the whole body was read.
 */
export async function drainSmallBody(req: IncomingMessage): Promise<void> {
  if (req.complete || req.headers['transfer-encoding'] !== undefined) return;
  const length = Number(req.headers['content-length'] ?? 0);
  if (!Number.isSafeInteger(length) || length > MAX_DRAINED_BODY_BYTES) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      req.off('end', done);
      req.off('close', done);
      req.off('error', done);
      resolve();
    };
    const timer = setTimeout(done, DRAIN_TIMEOUT_MS);
    req.on('end', done);
    req.on('close', done);
    req.on('error', done);
    req.resume();
  });
}
