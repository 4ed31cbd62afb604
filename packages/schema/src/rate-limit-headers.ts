/**
 * The rate-limit headers of every answer to an authenticated request (when the server's
 * per-credential limit is on), in the widely used `X-RateLimit-*` form, all integers:
 * - `limit`: requests per second the credential may sustain;
 * - `remaining`: requests it may send right now without waiting (at most the burst);
 * - `reset`: seconds (delta, not a date) until `remaining` is back at the burst; 0 when it is.
 * The server sets them, the client paces on them, and the OpenAPI document declares them.
 */
export const RATE_LIMIT_HEADERS = {
  limit: 'X-RateLimit-Limit',
  remaining: 'X-RateLimit-Remaining',
  reset: 'X-RateLimit-Reset',
} as const;
