import type { Middleware } from 'koa';

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
