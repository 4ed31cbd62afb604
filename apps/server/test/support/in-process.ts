import type { Operation } from '@plant-store/schema';
import Koa from 'koa';
import inject from 'light-my-request';
import { DEFAULTS } from '../../src/config.ts';
import type { AppMiddleware, AppState } from '../../src/http/app-state.ts';
import {
  answerUnrouted,
  contractRouter,
  type Implementations,
} from '../../src/http/contract-router.ts';
import { requestContext } from '../../src/http/request-context.ts';
import { createLogger } from '../../src/observability/logger.ts';

/**
 * A Koa app serving any contract as the server does (request context, the contract's routes,
 * 404/405 in the Error shape), in this process: drive it with {@link inProcessFetch} or
 * `light-my-request`'s `inject(app.callback(), …)`, no port.
 *
 * @example
 * const app = contractApp({ getThing }, { getThing: async ({ params }) => … });
 */
export function contractApp<C extends Readonly<Record<string, Operation>>>(
  contract: C,
  implementations: Implementations<C>,
  authenticate: readonly AppMiddleware[] = [],
): Koa<AppState> {
  const app = new Koa<AppState>();
  const router = contractRouter(contract, implementations, {
    authenticate,
    bodyLimitBytes: DEFAULTS.bodyLimitBytes,
  });
  app.use(requestContext(createLogger('silent')));
  app.use(router.routes()).use(answerUnrouted(router));
  app.silent = true;
  return app;
}

/** Statuses whose answer has no body (a `Response` refuses one). */
const NO_BODY = new Set([101, 204, 205, 304]);

/**
 * A `fetch` that reaches `app` in this process (through `light-my-request`), for a client:
 * the request as sent, the answer as a real `Response`.
 *
 * @example
 * const client = createPlantStoreClient({ baseUrl: 'http://in-process', token, fetch: inProcessFetch(app) });
 */
export function inProcessFetch(app: Koa<AppState>): typeof fetch {
  const dispatch = app.callback();
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const answer = await inject(dispatch, {
      method: request.method as 'GET',
      url: `${url.pathname}${url.search}`,
      headers: Object.fromEntries(request.headers),
      ...(body ? { payload: body } : {}),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      for (const item of [value].flat()) if (item !== undefined) headers.append(name, String(item));
    }
    return new Response(NO_BODY.has(answer.statusCode) ? null : answer.rawPayload, {
      status: answer.statusCode,
      statusText: answer.statusMessage,
      headers,
    });
  };
}
