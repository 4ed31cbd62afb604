import { createServer, type Server } from 'node:http';
import { Router } from '@koa/router';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import { PeerFailure, type PeerWork } from './work.ts';

interface State {
  route: string | null;
  consumer: string | null;
}

/**
 * The target: stock Koa + @koa/router + koa-bodyparser doing the shared work the way their
 * docs show: one outer middleware (request id, headers, errors, log line, metric), one route
 * with its middleware (bearer + limit + media type, koa-bodyparser reading the raw text with
 * the limit, parse + validate + commit).
 *
 * @example
 * const server = createKoaPeer(work); server.listen(0, '127.0.0.1');
 */
export function createKoaPeer(work: PeerWork): Server {
  const app = new Koa<State>();
  app.use(async (ctx, next) => {
    const started = performance.now();
    const requestId = work.requestId(ctx.get('x-request-id') || undefined);
    ctx.state.route = null;
    ctx.state.consumer = null;
    ctx.set(work.headers(requestId));
    try {
      await next();
      if (ctx.status === 404 && ctx.body == null) {
        throw new PeerFailure('notFound', 'No operation at this path');
      }
    } catch (thrown) {
      const failure = work.failure(thrown);
      ctx.status = failure.status;
      ctx.set(failure.headers);
      ctx.type = 'application/json';
      ctx.body = failure.body;
    }
    work.finish({
      requestId,
      method: ctx.method,
      route: ctx.state.route,
      status: ctx.status,
      durationMs: performance.now() - started,
      consumer: ctx.state.consumer,
    });
  });
  const router = new Router<State>();
  router.post(
    '/plants',
    async (ctx, next) => {
      ctx.state.route = '/plants';
      const consumer = work.authenticate(ctx.get('authorization') || undefined);
      ctx.state.consumer = consumer;
      ctx.set(await work.limit(consumer));
      work.requireJson(ctx.get('content-type') || undefined);
      await next();
    },
    bodyParser({
      enableTypes: ['text'],
      extendTypes: { text: ['application/json'] },
      textLimit: String(work.bodyLimitBytes),
    }),
    async (ctx) => {
      const body = await work.create(work.parse(ctx.request.rawBody ?? ''));
      ctx.type = 'application/json';
      ctx.body = body;
    },
  );
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true }));
  return createServer(app.callback());
}
