import { Router } from '@koa/router';
import {
  type Contract,
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
export type RouteHandler<R extends Route> = (body: RouteBody<R>) => Promise<RouteResult<R>>;
/** One handler per route of the contract. */
export type ContractHandlers = { [K in keyof Contract]: RouteHandler<Contract[K]> };

export interface ContractRouterOptions {
  readonly tokens: TokenRegistry;
  readonly bodyLimitBytes: number;
  /** Wraps the bearer check of authenticated routes (the rate limits: see `rateLimited`). */
  readonly guardAuthentication?: (authenticate: RequestStep) => RequestStep;
}

/** `/plants/{id}` (OpenAPI) → `/plants/:id` (@koa/router). */
export function toRouterPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

/**
 * Builds the @koa/router routes from the contract: for each route its method and path, and one
 * middleware that names the route for the log, runs the bearer check when the route requires
 * it, reads the JSON body when it has one, calls the handler and sends its result as the
 * route's success status: in JSON, or as the HTML page (with the page security headers) or
 * script text the route's `responseType` names.
 */
export function contractRouter(
  contract: Contract,
  handlers: ContractHandlers,
  options: ContractRouterOptions,
): Router<AppState> {
  const router = new Router<AppState>();
  const bearer = requireBearer(options.tokens);
  const authenticate = options.guardAuthentication?.(bearer) ?? bearer;
  for (const key of Object.keys(contract) as (keyof Contract)[]) {
    const route: Route = contract[key];
    const handler = handlers[key] as (body: unknown) => Promise<unknown>;
    const steps: RequestStep[] = [
      ...(route.auth === 'bearer' ? [authenticate] : []),
      ...(route.body ? [jsonBody(route.body, options.bodyLimitBytes)] : []),
    ];
    const responseType = route.responseType ?? 'json';
    const mediaType = RESPONSE_MEDIA_TYPES[responseType];
    // The Content-Type header Koa derives from mediaType (`ctx.type`: a MIME lookup and header
    // normalisation on every response), worked out on the route's first response and reused.
    let contentType: string | undefined;
    const send = (ctx: AppContext, result: unknown): void => {
      ctx.status = route.response.status;
      if (contentType === undefined) {
        ctx.type = mediaType;
        contentType = ctx.response.get('Content-Type') || undefined;
      } else {
        ctx.res.setHeader('Content-Type', contentType);
      }
      if (responseType === 'html') ctx.set(PAGE_SECURITY_HEADERS);
      ctx.body = responseType === 'json' ? toJsonText(result) : String(result);
    };
    // The steps from `from` on, then the handler: a step that returns a promise is waited
    // for, one that returns nothing is not (a promise and a microtask saved per step).
    const runFrom = (ctx: AppContext, from: number): Promise<void> => {
      for (let index = from; index < steps.length; index++) {
        const pending = (steps[index] as RequestStep)(ctx);
        if (pending !== undefined) return pending.then(() => runFrom(ctx, index + 1));
      }
      return handler(ctx.state.body).then((result) => send(ctx, result));
    };
    // Not async: Koa takes the returned promise, and a throw is a rejection to it.
    const serveRoute: AppMiddleware = (ctx) => {
      ctx.state.route = route.path;
      return runFrom(ctx, 0);
    };
    router.register(toRouterPath(route.path), [route.method], [serveRoute], {
      name: route.operationId,
    });
  }
  return router;
}

/**
 * Koa middleware that serves the router's routes: the request's layer is found with
 * `router.match` (so routing, methods and HEAD-for-GET are @koa/router's) and its one
 * middleware called directly. `router.routes()` would also build a middleware chain, a
 * composed function, a params object and a closure on every request; a contract route has
 * exactly one middleware, which ends the request, so the first matching layer is the one
 * @koa/router would run. Path parameters, when a route has any, land in `ctx.params` as there.
 */
export function routeDispatcher(router: Router<AppState>): AppMiddleware {
  return function dispatchRoute(ctx, next) {
    const path = ctx.path;
    const matched = router.match(path, ctx.method);
    const layer = matched.route
      ? matched.pathAndMethod.find((candidate) => candidate.methods.length > 0)
      : undefined;
    const serve = layer?.stack[0];
    if (layer === undefined || serve === undefined) return next();
    if (layer.paramNames.length > 0) {
      (ctx as AppContext & { params: Record<string, string> }).params = layer.params(
        path,
        layer.captures(path),
        {},
      ) as Record<string, string>;
    }
    return serve(ctx as never, next);
  };
}

/**
 * Koa middleware placed after the router: a request no route answered is a 404 for an unknown
 * path, or a 405 with an `Allow` header when the path exists with other methods.
 */
export function unmatchedRoute(router: Router<AppState>): AppMiddleware {
  return async function answerUnmatched(ctx) {
    const allowed = new Set<string>();
    for (const layer of router.match(ctx.path, ctx.method).path) {
      for (const method of layer.methods) allowed.add(method);
    }
    if (allowed.size === 0) {
      throw new ApiError('notFound', `No operation at ${ctx.method} ${ctx.path}`);
    }
    const allow = [...allowed].join(', ');
    throw new ApiError(
      'methodNotAllowed',
      `${ctx.method} is not allowed on ${ctx.path}; allowed: ${allow}`,
      { Allow: allow },
    );
  };
}

/**
 * A result as JSON text: an object of strings only (a Plant) by `JSON.stringify`, which
 * writes it exactly as the lossless serializer does (that one uses `JSON.stringify` for every
 * key and string) without its generic walk; anything else (a bigint, nesting) losslessly.
 */
function toJsonText(result: unknown): string {
  if (typeof result === 'object' && result !== null && !Array.isArray(result)) {
    let flat = true;
    for (const key in result) {
      if (typeof (result as Record<string, unknown>)[key] !== 'string') {
        flat = false;
        break;
      }
    }
    if (flat && Object.getPrototypeOf(result) === Object.prototype) return JSON.stringify(result);
  }
  return stringifyJson(result);
}
