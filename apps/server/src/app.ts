import { contract } from '@plant-store/schema';
import Koa from 'koa';
import type { Logger } from 'pino';
import type { TokenRegistry } from './auth/token-registry.ts';
import { DOCS_PATHS } from './docs/docs-assets.ts';
import { serveDocsAssets } from './docs/serve-docs-assets.ts';
import { contractHandlers, type Lifecycle } from './handlers.ts';
import type { AppState } from './http/app-state.ts';
import { answerUnrouted, contractRouter } from './http/contract-router.ts';
import { cors } from './http/cors.ts';
import { limitCredential } from './http/limit-credential.ts';
import { requestContext } from './http/request-context.ts';
import { requireBearer } from './http/require-bearer.ts';
import { clientAddress, proxyTrust } from './limits/key.ts';
import type { RateLimits } from './limits/rate-limits.ts';
import type { ServiceMetrics } from './observability/metrics.ts';
import type { PlantStore } from './store/plant-store.ts';

interface AppOptions {
  readonly store: PlantStore;
  readonly tokens: TokenRegistry;
  readonly bodyLimitBytes: number;
  readonly logger: Logger;
  readonly metrics?: ServiceMetrics | undefined;
  readonly rateLimits?: RateLimits | undefined;
  readonly corsOrigins?: readonly string[] | undefined;
  readonly trustProxy?: readonly string[] | undefined;
  readonly lifecycle: Lifecycle;
}

/**
 * The Koa application: request context, CORS, the contract's routes and the reference page
 * beside them, 404/405 for the rest.
 *
 * @example
 * const app = createApp({ store, tokens, bodyLimitBytes: 65536, logger, lifecycle });
 */
export function createApp(options: AppOptions): Koa<AppState> {
  const { rateLimits, corsOrigins = [] } = options;
  // Koa's own `proxy` stays off: it believes X-Forwarded-For from any peer.
  const app = new Koa<AppState>();
  const docs = serveDocsAssets();
  const handlers = contractHandlers(options.store, options.lifecycle);
  const router = contractRouter(
    contract,
    { ...handlers, getOpenApiDocument: { serve: docs.document } },
    {
      authenticate: [
        requireBearer(options.tokens, rateLimits),
        ...(rateLimits ? [limitCredential(rateLimits)] : []),
      ],
      bodyLimitBytes: options.bodyLimitBytes,
    },
  );
  router.get(DOCS_PATHS.page, docs.page).get(DOCS_PATHS.script, docs.script);
  app.use(requestContext(options.logger, options.metrics, options.lifecycle));
  const trust = proxyTrust(options.trustProxy ?? []);
  if (trust) {
    app.use(async function clientAddressFromProxy(ctx, next) {
      ctx.request.ip = clientAddress(ctx.req, trust);
      await next();
    });
  }
  if (corsOrigins.length > 0) app.use(cors(corsOrigins, router));
  app.use(router.routes());
  app.use(answerUnrouted(router));
  // Only a failure while writing a response reaches Koa's handler: logged (this listener
  // replaces Koa's printing one).
  app.on('error', (error: unknown) => options.logger.error({ err: error }, 'koa error'));
  return app;
}
