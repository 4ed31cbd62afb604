import type { IncomingMessage } from 'node:http';
import { ApiError } from '../http/api-error.ts';
import type { AppContext, AppMiddleware, RequestStep } from '../http/app-state.ts';
import { addressKey } from './key.ts';
import type { RateLimits } from './rate-limits.ts';

/**
 * A credential over its limit whose body is at most this long (by Content-Length) has it read
 * and dropped before the 429, so the connection stays open for the client's next request;
 * a longer or chunked body is not read, and the connection is closed after the answer.
 */
export const MAX_DRAINED_BODY_BYTES = 65_536;
/** The longest a 429 waits for such a body to arrive before answering and closing. */
export const DRAIN_TIMEOUT_MS = 1_000;

/**
 * The credential check wrapped in the rate limits, before the body is read: a refused
 * credential counts against its address (`ctx.ip`) and past the budget gets 429 instead of 401
 * (a valid credential is never counted or refused for its address); an accepted one takes a
 * request from its credential's limit, and the answer carries the `X-RateLimit-*` headers. A
 * credential's 429 keeps the connection when the body is small (`MAX_DRAINED_BODY_BYTES`).
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
    try {
      const headers = await limits.consumeCredential(ctx.state.consumer ?? '');
      if (headers) ctx.set(headers);
    } catch (error) {
      if (error instanceof ApiError && error.kind === 'rateLimited') await drainSmallBody(ctx.req);
      throw error;
    }
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
