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
import type { AppContext, AppMiddleware, AppState, RequestStep } from './app-state.ts';
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
  /** Middleware around the answer of one route (the docs script's caching, say). */
  readonly around?: { readonly [K in keyof Contract]?: AppMiddleware };
}

/** Not OPTIONS, which `allowedMethods` would answer 200: no route has it, so it gets a 405. */
const ROUTER_METHODS = ['HEAD', 'GET', 'PUT', 'PATCH', 'POST', 'DELETE'];

/** `/plants/{id}` (OpenAPI) → `/plants/:id` (@koa/router). */
function toRouterPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

/**
 * The @koa/router routes of the contract, as a stock Koa route would have them: the route named
 * for the log, the bearer and the body's headers checked; koa-bodyparser; the body validated,
 * the handler called, its result sent with the route's status and `responseType`.
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
  for (const key of Object.keys(contract) as (keyof Contract)[]) {
    const route: Route = contract[key];
    const body = route.body ? jsonBody(route.body, options.bodyLimitBytes) : undefined;
    const admit: AppMiddleware = async (ctx, next) => {
      ctx.state.route = route.path;
      if (route.auth === 'bearer') await authenticate(ctx);
      body?.checkHeaders(ctx);
      await next();
    };
    const around = options.around?.[key];
    router.register(
      toRouterPath(route.path),
      [route.method],
      [
        admit,
        ...(body ? [body.readText] : []),
        ...(around ? [around] : []),
        respond(route, handlers[key] as (body: unknown) => Promise<unknown>, body?.validate),
      ],
      { name: route.operationId },
    );
  }
  return router;
}

function respond(
  route: Route,
  handler: (body: unknown) => Promise<unknown>,
  validate?: (ctx: AppContext) => unknown,
): AppMiddleware {
  const responseType = route.responseType ?? 'json';
  // A handler that answers the same object every time (the OpenAPI document) is serialised once.
  let lastResult: unknown;
  let lastJson = '';
  const toJson = (result: unknown): string => {
    if (result !== lastResult || lastJson === '') {
      lastJson = jsonText(result);
      lastResult = result;
    }
    return lastJson;
  };
  return async function serveRoute(ctx) {
    const result = await handler(validate?.(ctx));
    ctx.status = route.response.status;
    ctx.type = RESPONSE_MEDIA_TYPES[responseType];
    if (responseType === 'html') ctx.set(PAGE_SECURITY_HEADERS);
    ctx.body = responseType === 'json' ? toJson(result) : String(result);
  };
}

/**
 * `JSON.stringify`, which writes strings and safe numbers exactly as the lossless serializer
 * does; only a value holding a bigint (an int64 bound of the OpenAPI document), which
 * `JSON.stringify` refuses, is written by the lossless one.
 */
function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return stringifyJson(value);
  }
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
    { Allow: allow },
  );
};
