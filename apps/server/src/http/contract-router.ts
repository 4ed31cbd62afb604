import { Router } from '@koa/router';
import {
  type Contract,
  ERROR_MESSAGES,
  RESPONSE_MEDIA_TYPES,
  type Route,
  type RouteBody,
  type RouteResult,
} from '@plant-store/schema';
import { ApiError } from './api-error.ts';
import type { AppContext, AppMiddleware, AppState } from './app-state.ts';
import { jsonBody } from './json-body.ts';

type RouteHandler<R extends Route> = (body: RouteBody<R>) => Promise<RouteResult<R>>;
export type ContractHandlers = { [K in keyof Contract]: RouteHandler<Contract[K]> };

interface ContractRouterOptions {
  readonly bodyLimitBytes: number;
  /** The middleware of authenticated routes, before the body is read (`requireBearer`, …). */
  readonly authentication: readonly AppMiddleware[];
  /** Middleware around the answer of one route (the docs' files). */
  readonly around?: { readonly [K in keyof Contract]?: AppMiddleware };
}

/** Not OPTIONS, which `allowedMethods` would answer 200: no route has it, so it gets a 405. */
const ROUTER_METHODS = ['HEAD', 'GET', 'PUT', 'PATCH', 'POST', 'DELETE'];

/**
 * The @koa/router routes of the contract: bearer and body headers checked, body read and
 * validated, the handler's result sent with the route's status and `responseType`.
 */
export function contractRouter(
  contract: Contract,
  handlers: ContractHandlers,
  options: ContractRouterOptions,
): Router<AppState> {
  // Paths exactly as the contract writes them: `/plants/` and `/PLANTS` are 404s.
  const router = new Router<AppState>({ methods: ROUTER_METHODS, strict: true, sensitive: true });
  for (const key of Object.keys(contract) as (keyof Contract)[]) {
    const route: Route = contract[key];
    const readBody = route.body ? jsonBody(route.body, options.bodyLimitBytes) : undefined;
    const around = options.around?.[key];
    const handler = handlers[key] as (body: unknown) => Promise<unknown>;
    const responseType = route.responseType ?? 'json';
    // What Koa's `ctx.type` makes of it (JSON is UTF-8), without its look-up at each answer.
    const media = RESPONSE_MEDIA_TYPES[responseType];
    const contentType = responseType === 'json' ? `${media}; charset=utf-8` : media;
    // No handler answers a bigint (a Plant, a status, the index): JSON.stringify does.
    const send = (ctx: AppContext, result: unknown) => {
      ctx.status = route.response.status;
      ctx.res.setHeader('Content-Type', contentType);
      ctx.body = responseType === 'json' ? JSON.stringify(result) : String(result);
    };
    const routed: AppMiddleware = (ctx, next) => {
      ctx.state.route = route.path;
      return next();
    };
    const serve: AppMiddleware = async (ctx) => {
      const body = readBody ? await readBody(ctx) : undefined;
      if (around) return around(ctx, async () => send(ctx, await handler(body)));
      send(ctx, await handler(body));
    };
    // `/plants/{id}` (OpenAPI) → `/plants/:id` (@koa/router).
    const path = route.path.replace(/\{([^}]+)\}/g, ':$1');
    const authentication = route.auth === 'bearer' ? options.authentication : [];
    router.register(path, [route.method], [routed, ...authentication, serve], {
      name: route.operationId,
    });
  }
  return router;
}

/**
 * Between `routes()` and `allowedMethods()`: an unrouted request is a 405 with `Allow` when the
 * path has other methods (501 and OPTIONS included), else a 404, in the Error shape.
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
