import type { Middleware, ParameterizedContext } from 'koa';

export interface AppState {
  requestId: string;
  /** The credential's name (never the token). */
  consumer?: string;
  /** The matched route's contract path, for the log and metrics. */
  route?: string;
}

export type AppMiddleware = Middleware<AppState>;

export type AppContext = ParameterizedContext<AppState>;

/** A check before the body is read: returns (resolves) to go on, throws an ApiError not to. */
export type RequestStep = (ctx: AppContext) => void | Promise<void>;
