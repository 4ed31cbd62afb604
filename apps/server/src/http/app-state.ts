import type { RouterContext } from '@koa/router';
import type { DefaultContext, Middleware, ParameterizedContext } from 'koa';

/** What the app's middleware note on a request, for the answer, the log and the metrics. */
export interface AppState {
  requestId: string;
  /** The credential's name (never the token). */
  consumer?: string;
}

/** Koa's context, with the path of the route @koa/router matched (`/plants`), if any. */
type Routed = DefaultContext & Pick<RouterContext, 'routerPath'>;

export type AppContext = ParameterizedContext<AppState, Routed>;

export type AppMiddleware = Middleware<AppState, Routed>;
