import { createRequire } from 'node:module';
import type * as Flexible from 'rate-limiter-flexible';

// rate-limiter-flexible's classes, each loaded from its own file as the library documents:
// its index loads every backend it supports (Redis, Mongo, DynamoDB, …), which slows startup.
const require = createRequire(import.meta.url);

/** rate-limiter-flexible's in-process limiter. */
export const RateLimiterMemory: typeof Flexible.RateLimiterMemory = require('rate-limiter-flexible/lib/RateLimiterMemory.js');
/** The state of a key (what `consume` resolves or rejects with). */
export const RateLimiterRes: typeof Flexible.RateLimiterRes = require('rate-limiter-flexible/lib/RateLimiterRes.js');
export type RateLimiterRes = Flexible.RateLimiterRes;

/**
 * rate-limiter-flexible's PostgreSQL limiter, loaded only when a PostgreSQL backend is made.
 *
 * @example
 * const RateLimiterPostgres = loadRateLimiterPostgres();
 */
export function loadRateLimiterPostgres(): typeof Flexible.RateLimiterPostgres {
  return require('rate-limiter-flexible/lib/RateLimiterPostgres.js');
}
