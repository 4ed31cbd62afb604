import type { Middleware, ParameterizedContext } from 'koa';

/** What the middlewares of one request share through `ctx.state`. */
export interface AppState {
  /** The request's id, echoed as `X-Request-Id`. */
  requestId: string;
  /** The name of the credential the request was authenticated with (never the token). */
  consumer?: string;
  /** The contract path of the matched route, for the request log and metrics. */
  route?: string;
}

export type AppMiddleware = Middleware<AppState>;

/** The Koa context of one request of the app. */
export type AppContext = ParameterizedContext<AppState>;

/**
 * A check a route runs before its body is read (the credential, with the rate limits around
 * it): it returns, or its promise resolves, when the request may go on, and throws (rejects)
 * with an ApiError when it may not.
 */
export type RequestStep = (ctx: AppContext) => void | Promise<void>;
