import type * as z from 'zod/mini';
import type { ErrorName } from './error-catalog.ts';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** How a route's success body is sent: JSON (the default), an HTML page, or a script. */
export type ResponseType = 'json' | 'html' | 'javascript';
/** The `Content-Type` of each response type. */
export const RESPONSE_MEDIA_TYPES: Readonly<Record<ResponseType, string>> = {
  json: 'application/json',
  html: 'text/html; charset=utf-8',
  javascript: 'text/javascript; charset=utf-8',
};

/**
 * What a client needs to call an operation: its method, path, credential, body schema and
 * success response. A {@link Route} is one of these plus what only the server and the document
 * use (its OpenAPI tag, its catalog errors); a browser bundle holds only the call
 * (`createPlantCall` in `@plant-store/schema/shapes`).
 */
export interface RouteCall<
  TBody extends z.ZodMiniType | undefined = z.ZodMiniType | undefined,
  TResponse extends z.ZodMiniType = z.ZodMiniType,
> {
  readonly operationId: string;
  readonly method: HttpMethod;
  /** OpenAPI path template, e.g. `/plants` or `/plants/{id}`. */
  readonly path: string;
  /** `bearer`: the request must carry `Authorization: Bearer <token>`. */
  readonly auth: 'bearer' | 'none';
  /** The required JSON request body, or `undefined` for an operation without one. */
  readonly body: TBody;
  readonly response: {
    readonly status: 200;
    readonly schema: TResponse;
  };
}

/**
 * One operation of the API, declared once. The server's routing and validation, the client's
 * call and the OpenAPI document are all derived from these fields; what the document says of
 * it in prose (summary, description) is in openapi/prose.ts, off the browser's path.
 */
export interface Route<
  TBody extends z.ZodMiniType | undefined = z.ZodMiniType | undefined,
  TResponse extends z.ZodMiniType = z.ZodMiniType,
> extends RouteCall<TBody, TResponse> {
  /** The OpenAPI tag it is listed under (its prose is the OpenAPI builder's: openapi/prose.ts). */
  readonly tag: 'plants' | 'operations';
  /** The success body's media type; `json` when absent. `html`/`javascript` bodies are strings. */
  readonly responseType?: ResponseType;
  /** The catalog errors this operation can answer with (the router's own: {@link ROUTING_ERRORS}). */
  readonly errors: readonly ErrorName[];
  /**
   * `false`: served, but not an operation of the OpenAPI document. The reference page and its
   * script are HTML and JavaScript for a browser, not calls an API consumer makes.
   */
  readonly documented?: false;
}

/**
 * What the router answers on every path of the contract, whatever the operation: 404 for a
 * path no route has (a wrong server URL or path prefix) and 405, with `Allow`, for a method the
 * path does not support. The document lists both on every operation.
 */
export const ROUTING_ERRORS = [
  'notFound',
  'methodNotAllowed',
] as const satisfies readonly ErrorName[];

/** Declares a route with its exact types kept (helper for inference only). */
export function defineRoute<
  TBody extends z.ZodMiniType | undefined,
  TResponse extends z.ZodMiniType,
>(route: Route<TBody, TResponse>): Route<TBody, TResponse> {
  return route;
}

/** Declares a route's call with its exact types kept (helper for inference only). */
export function defineRouteCall<
  TBody extends z.ZodMiniType | undefined,
  TResponse extends z.ZodMiniType,
>(call: RouteCall<TBody, TResponse>): RouteCall<TBody, TResponse> {
  return call;
}

/**
 * Declares a route as its call plus what only the server and the document use. Written
 * `/* @__PURE__ *\/ routeOf(call, { … })` where the call is what a browser needs: a bundler then
 * drops the route (its tag, its catalog errors) when only the call is used.
 *
 * @example
 * export const createPlant = routeOf(createPlantCall, { tag: 'plants', errors: ['conflict'] });
 */
export function routeOf<TBody extends z.ZodMiniType | undefined, TResponse extends z.ZodMiniType>(
  call: RouteCall<TBody, TResponse>,
  rest: Omit<Route<TBody, TResponse>, keyof RouteCall>,
): Route<TBody, TResponse> {
  return { ...call, ...rest };
}

/** The body a route's handler receives, after validation. */
export type RouteBody<R extends RouteCall> = R['body'] extends z.ZodMiniType
  ? z.output<R['body']>
  : undefined;
/** The body a caller passes for a route, before validation. */
export type RouteInput<R extends RouteCall> = R['body'] extends z.ZodMiniType
  ? z.input<R['body']>
  : undefined;
/** The success body of a route. */
export type RouteResult<R extends RouteCall> = z.output<R['response']['schema']>;
