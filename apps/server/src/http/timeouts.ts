import type { ServerOptions } from 'node:http';

/** The HTTP server's timeouts, in milliseconds. */
export interface HttpTimeouts {
  /** A request's headers must be complete this long after its first byte (slowloris). */
  readonly headersTimeoutMs: number;
  /** A whole request, body included, must have arrived this long after its first byte. */
  readonly requestTimeoutMs: number;
  /**
   * An idle keep-alive connection is closed after this long. Longer than a load balancer's own
   * idle timeout (AWS ALB: 60 s), so the balancer, not the server, closes idle connections and
   * never sends a request on a connection the server is closing (a spurious 502).
   */
  readonly keepAliveTimeoutMs: number;
  /** How often the server looks for connections over `headersTimeoutMs`/`requestTimeoutMs`. */
  readonly connectionsCheckingIntervalMs: number;
  /**
   * After an answer sent before the request's body was read (and that closes the connection),
   * how long the rest of the body is read and discarded at most, so the client reads the
   * answer rather than a reset (see `lingering-close.ts`). 0 closes at once.
   */
  readonly lingerMs: number;
}

/**
 * The defaults. Node's own (headers 60 s, request 300 s, keep-alive 5 s, checked every 30 s)
 * let a slowloris socket live 30 s or more and close keep-alive connections before a load
 * balancer does. Here a socket that has not sent complete headers within 5 s is cut within
 * about 6 s (5 s + one 1 s check).
 */
export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = {
  headersTimeoutMs: 5_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 65_000,
  connectionsCheckingIntervalMs: 1_000,
  lingerMs: 5_000,
};

/**
 * The `http.createServer` options for `timeouts` (defaults for any not given; `lingerMs` is
 * not Node's: see `lingerOnClose`).
 *
 * @example
 * const server = http.createServer(httpServerOptions({ keepAliveTimeoutMs: 120_000 }), handler);
 */
export function httpServerOptions(timeouts: Partial<HttpTimeouts> = {}): ServerOptions {
  const merged = { ...DEFAULT_HTTP_TIMEOUTS, ...timeouts };
  return {
    headersTimeout: merged.headersTimeoutMs,
    requestTimeout: merged.requestTimeoutMs,
    keepAliveTimeout: merged.keepAliveTimeoutMs,
    connectionsCheckingInterval: merged.connectionsCheckingIntervalMs,
  };
}
