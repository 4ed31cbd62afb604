import { contract } from '@plant-store/schema';
import Koa from 'koa';
import type { Logger } from 'pino';
import type { TokenRegistry } from './auth/token-registry.ts';
import { serveDocsAssets } from './docs/serve-docs-assets.ts';
import { contractHandlers } from './handlers.ts';
import type { AppState } from './http/app-state.ts';
import { answerUnrouted, contractRouter } from './http/contract-router.ts';
import { cors } from './http/cors.ts';
import { requestContext } from './http/request-context.ts';
import { anonymousLimit, rateLimited } from './limits/guard.ts';
import { clientAddress, proxyTrust } from './limits/key.ts';
import type { RateLimits } from './limits/rate-limits.ts';
import type { ServiceMetrics } from './observability/metrics.ts';
import type { PlantStore } from './store/plant-store.ts';

export interface AppOptions {
  readonly store: PlantStore;
  readonly tokens: TokenRegistry;
  readonly bodyLimitBytes: number;
  readonly logger: Logger;
  /** Observe requests into these metrics (served elsewhere: see `observability/metrics-listener.ts`). */
  readonly metrics?: ServiceMetrics;
  /** Apply these limits around the bearer check; none when absent. */
  readonly rateLimits?: RateLimits;
  /** Browser origins CORS allows; CORS is off when absent or empty. */
  readonly corsOrigins?: readonly string[];
  /**
   * Addresses and networks of the reverse proxies whose `X-Forwarded-For` is believed
   * (TRUST_PROXY); none by default.
   */
  readonly trustProxy?: readonly string[];
  /** The built API reference files (`/docs`, its script, `/openapi.json`); see `docsAssetsFolder`. */
  readonly docsAssets?: string;
}

/** The requests the contract's bearer check sees (their limits are the credential's). */
const BEARER_ROUTES = new Set(
  Object.values(contract)
    .filter((route) => route.auth === 'bearer')
    .map((route) => `${route.method.toUpperCase()} ${route.path}`),
);
const needsCredential = (ctx: { method: string; path: string }) =>
  BEARER_ROUTES.has(`${ctx.method} ${ctx.path}`);

/**
 * The Koa application: the per-request bookkeeping (request id, headers, metrics, log), CORS
 * when configured, the error responder, the routes derived from the contract (rate-limited
 * around the bearer check), and 404/405 for everything else. Metrics, limits and CORS are
 * each off unless given.
 *
 * @example
 * const app = createApp({ store, tokens, bodyLimitBytes: 65536, logger });
 * http.createServer(app.callback()).listen(3000);
 */
export function createApp(options: AppOptions): Koa<AppState> {
  const { rateLimits, corsOrigins = [] } = options;
  // Koa's own `proxy` stays off: it believes X-Forwarded-For from any peer.
  const app = new Koa<AppState>();
  const router = contractRouter(contract, contractHandlers(options.store), {
    tokens: options.tokens,
    bodyLimitBytes: options.bodyLimitBytes,
    ...(rateLimits ? { guardAuthentication: (check) => rateLimited(rateLimits, check) } : {}),
    // The reference page, its script and the document: files of the build, sent as they are.
    around: serveDocsAssets(options.docsAssets),
  });
  // Outermost: request id, headers, metric, log line, and every error in the Error shape.
  app.use(requestContext(options.logger, options.metrics));
  // ctx.ip: the socket's peer or, from a trusted proxy, the client it names (limits/key.ts).
  const trust = proxyTrust(options.trustProxy ?? []);
  if (trust) {
    app.use((ctx, next) => {
      ctx.request.ip = clientAddress(ctx.req, trust);
      return next();
    });
  }
  if (rateLimits) app.use(anonymousLimit(rateLimits, needsCredential)); // when configured
  if (corsOrigins.length > 0) app.use(cors(corsOrigins, router));
  app.use(router.routes());
  app.use(answerUnrouted);
  app.use(router.allowedMethods());
  // Errors are answered by requestContext; anything reaching Koa's own handler (a failure
  // while writing a response) is logged, not printed.
  app.silent = true;
  app.on('error', (error: unknown) => options.logger.error({ err: error }, 'koa error'));
  return app;
}
