import { buildOpenApiDocument, contract } from '@plant-store/schema';
import Koa from 'koa';
import type { Logger } from 'pino';
import { contractHandlers } from './handlers.ts';
import type { AppState } from './http/app-state.ts';
import { contractRouter, unmatchedRoute } from './http/contract-router.ts';
import { errorResponder } from './http/error-responder.ts';
import { requestContext } from './http/request-context.ts';
import type { PlantStore } from './store/plant-store.ts';
import type { TokenRegistry } from './token-registry.ts';

export interface AppOptions {
  readonly store: PlantStore;
  readonly tokens: TokenRegistry;
  readonly bodyLimitBytes: number;
  readonly logger: Logger;
}

/**
 * The Koa application: request context and logging, the one error responder, the routes
 * derived from the contract, and 404/405 for everything else.
 *
 * @example
 * const app = createApp({ store, tokens, bodyLimitBytes: 65536, logger });
 * http.createServer(app.callback()).listen(3000);
 */
export function createApp(options: AppOptions): Koa<AppState> {
  const app = new Koa<AppState>({ proxy: false });
  const handlers = contractHandlers(options.store, buildOpenApiDocument());
  const router = contractRouter(contract, handlers, {
    tokens: options.tokens,
    bodyLimitBytes: options.bodyLimitBytes,
  });
  app.use(requestContext(options.logger));
  app.use(errorResponder(options.logger));
  app.use(router.routes());
  app.use(unmatchedRoute(router));
  // Errors are answered by errorResponder; anything reaching Koa's own handler (a failure
  // while writing a response) is logged, not printed.
  app.silent = true;
  app.on('error', (error: unknown) => options.logger.error({ err: error }, 'koa error'));
  return app;
}
