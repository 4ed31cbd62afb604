import type { Middleware, ParameterizedContext } from 'koa';

/** What the middlewares of one request share through `ctx.state`. */
export interface AppState {
  /** The request's id, echoed as `X-Request-Id`. */
  requestId: string;
  /** The name of the credential the request was authenticated with (never the token). */
  consumer?: string;
  /** The contract path of the matched route, for the request log. */
  route?: string;
  /** The validated request body. */
  body?: unknown;
}

export type AppMiddleware = Middleware<AppState>;

/** The Koa context of one request of the app. */
export type AppContext = ParameterizedContext<AppState>;

/**
 * One step of serving a route (the credential check, reading the body): it returns (or its
 * promise settles) when the request may go on and throws (rejects) with an ApiError when it
 * may not. A step that has nothing to wait for returns at once, without a promise: the route
 * awaits only what is a promise. A route runs its steps in one middleware instead of one
 * middleware each: every Koa middleware layer costs a promise and a dispatch on every request.
 */
export type RequestStep = (ctx: AppContext) => void | Promise<void>;
