import type { IncomingMessage } from 'node:http';
import { RATE_LIMIT_HEADERS } from '@plant-store/schema';
import { ApiError } from '../http/api-error.ts';
import type { AppContext, RequestStep } from '../http/app-state.ts';
import { addressKey } from './key.ts';
import type { CredentialAllowance, RateLimits } from './rate-limits.ts';

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
  // Not async: with the in-memory limits and a configured token every check is decided at
  // once and the step returns nothing (no promise); a step that must wait returns its promise.
  const consume = (ctx: AppContext): Promise<void> | undefined => {
    let allowance: ReturnType<RateLimits['consumeCredentialNow']>;
    try {
      allowance = limits.consumeCredentialNow(ctx.state.consumer ?? '');
    } catch (error) {
      return refusedForRate(ctx, error);
    }
    if (allowance instanceof Promise) {
      return allowance.then(
        (given) => setAllowanceHeaders(ctx, given),
        (error: unknown) => refusedForRate(ctx, error),
      );
    }
    setAllowanceHeaders(ctx, allowance);
    return undefined;
  };
  const refusedCredential = (error: unknown, address: string): Promise<never> =>
    error instanceof ApiError && error.kind === 'unauthorized'
      ? limits.recordAuthFailure(address).then(() => Promise.reject(error))
      : Promise.reject(error);
  const authenticateAndConsume = (ctx: AppContext, address: string): Promise<void> | undefined => {
    let checked: void | Promise<void>;
    try {
      checked = authenticate(ctx);
    } catch (error) {
      return refusedCredential(error, address);
    }
    if (checked === undefined) return consume(ctx);
    return checked.then(
      () => consume(ctx),
      (error: unknown) => refusedCredential(error, address),
    );
  };
  return function limitedAuthentication(ctx) {
    const address = keyOf(ctx.ip);
    const addressChecked = limits.checkAddressNow(address);
    if (addressChecked === undefined) return authenticateAndConsume(ctx, address);
    return addressChecked.then(() => authenticateAndConsume(ctx, address));
  };
}

/** A 429 for the credential keeps the connection when its body is small; see `rateLimited`. */
function refusedForRate(ctx: AppContext, error: unknown): Promise<never> {
  if (error instanceof ApiError && error.kind === 'rateLimited') {
    return drainSmallBody(ctx.req).then(() => Promise.reject(error));
  }
  return Promise.reject(error);
}

/** The `X-RateLimit-*` headers, straight onto the response (nothing is sent yet). */
function setAllowanceHeaders(ctx: AppContext, allowance: CredentialAllowance | undefined): void {
  if (allowance === undefined) return;
  const res = ctx.res;
  res.setHeader(RATE_LIMIT_HEADERS.limit, String(allowance.limit));
  res.setHeader(RATE_LIMIT_HEADERS.remaining, String(allowance.remaining));
  res.setHeader(RATE_LIMIT_HEADERS.reset, String(allowance.resetSeconds));
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
