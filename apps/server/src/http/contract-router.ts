import { Router } from '@koa/router';
import {
  type Contract,
  ERROR_MESSAGES,
  RESPONSE_MEDIA_TYPES,
  type Route,
  type RouteBody,
  type RouteResult,
  stringifyJson,
} from '@plant-store/schema';
import type { TokenRegistry } from '../auth/token-registry.ts';
import { ApiError } from './api-error.ts';
import type { AppMiddleware, AppState, RequestStep } from './app-state.ts';
import { jsonBody } from './json-body.ts';
import { PAGE_SECURITY_HEADERS } from './page-security-headers.ts';
import { requireBearer } from './require-bearer.ts';

/** The function that serves one route: validated body in, success body out. */
type RouteHandler<R extends Route> = (body: RouteBody<R>) => Promise<RouteResult<R>>;
/** One handler per route of the contract. */
export type ContractHandlers = { [K in keyof Contract]: RouteHandler<Contract[K]> };

export interface ContractRouterOptions {
  readonly tokens: TokenRegistry;
  readonly bodyLimitBytes: number;
  /** Wraps the bearer check of authenticated routes (the rate limits: see `rateLimited`). */
  readonly guardAuthentication?: (authenticate: RequestStep) => RequestStep;
}

/**
 * The methods the router implements: not OPTIONS, which `allowedMethods` would answer 200 with
 * `Allow`; no route has it, so it gets the 405 of any other method.
 */
const ROUTER_METHODS = ['HEAD', 'GET', 'PUT', 'PATCH', 'POST', 'DELETE'];

/** `/plants/{id}` (OpenAPI) → `/plants/:id` (@koa/router). */
function toRouterPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

/**
 * The @koa/router routes of the contract: for each route its method and path, and the
 * middlewares that name the route for the log, check the bearer credential when the route
 * requires it, read the JSON body when it has one, and call the handler, whose result is sent
 * with the route's success status: as JSON, or as the HTML page (with the page security
 * headers) or script text the route's `responseType` names.
 *
 * @example
 * const router = contractRouter(contract, handlers, { tokens, bodyLimitBytes: 65536 });
 * app.use(router.routes()).use(answerUnrouted).use(router.allowedMethods());
 */
export function contractRouter(
  contract: Contract,
  handlers: ContractHandlers,
  options: ContractRouterOptions,
): Router<AppState> {
  // Paths exactly as the contract writes them: `/plants/` and `/PLANTS` are 404s.
  const router = new Router<AppState>({ methods: ROUTER_METHODS, strict: true, sensitive: true });
  const bearer = requireBearer(options.tokens);
  const authenticate = options.guardAuthentication?.(bearer) ?? bearer;
  const authenticated: AppMiddleware = async (ctx, next) => {
    await authenticate(ctx);
    await next();
  };
  for (const key of Object.keys(contract) as (keyof Contract)[]) {
    const route: Route = contract[key];
    const named: AppMiddleware = async (ctx, next) => {
      ctx.state.route = route.path;
      await next();
    };
    router.register(
      toRouterPath(route.path),
      [route.method],
      [
        named,
        ...(route.auth === 'bearer' ? [authenticated] : []),
        ...(route.body ? jsonBody(route.body, options.bodyLimitBytes) : []),
        respond(route, handlers[key] as (body: unknown) => Promise<unknown>),
      ],
      { name: route.operationId },
    );
  }
  return router;
}

/** The last middleware of a route: calls its handler and sends the result. */
function respond(route: Route, handler: (body: unknown) => Promise<unknown>): AppMiddleware {
  const responseType = route.responseType ?? 'json';
  // A handler that answers the same object every time (the OpenAPI document) is serialised once.
  let lastResult: unknown;
  let lastJson = '';
  const toJson = (result: unknown): string => {
    if (result !== lastResult || lastJson === '') {
      lastJson = stringifyJson(result);
      lastResult = result;
    }
    return lastJson;
  };
  return async function serveRoute(ctx) {
    const result = await handler(ctx.state.body);
    ctx.status = route.response.status;
    ctx.type = RESPONSE_MEDIA_TYPES[responseType];
    if (responseType === 'html') ctx.set(PAGE_SECURITY_HEADERS);
    ctx.body = responseType === 'json' ? toJson(result) : String(result);
  };
}

/**
 * Koa middleware between `router.routes()` and `router.allowedMethods()`, for a request no route
 * answered: what `allowedMethods` decides becomes the Error shape. A path that exists with
 * other methods is a 405 with its `Allow` header (also for a method no route implements, which
 * `allowedMethods` calls 501, OPTIONS included: see `ROUTER_METHODS`); any other path is a 404.
 *
 * @example
 * app.use(router.routes()).use(answerUnrouted).use(router.allowedMethods());
 */
export const answerUnrouted: AppMiddleware = async (ctx, next) => {
  await next();
  // Unset is undefined at run time, whatever the type says.
  const allow: string | undefined = ctx.response.get('Allow');
  if (!allow) throw new ApiError('notFound', ERROR_MESSAGES.notFound(ctx.method, ctx.path));
  throw new ApiError(
    'methodNotAllowed',
    ERROR_MESSAGES.methodNotAllowed(ctx.method, ctx.path, allow.split(', ')),
    {
      Allow: allow,
    },
  );
};
