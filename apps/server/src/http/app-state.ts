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
