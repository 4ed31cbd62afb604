import type { Server } from 'node:http';
import Fastify from 'fastify';
import { PeerFailure, type PeerWork } from './work.ts';

declare module 'fastify' {
  interface FastifyRequest {
    consumer: string | null;
  }
}

/**
 * Fastify doing the shared work in its own idiom: `genReqId` for the request id, an
 * `onRequest` hook for bearer + limit, its body limit and a string content-type parser for
 * `application/json` only, the shared parse + validate + commit in the handler, `onResponse`
 * for the log line and metric.
 *
 * @example
 * const server = await createFastifyPeer(work); server.listen(0, '127.0.0.1');
 */
export async function createFastifyPeer(work: PeerWork): Promise<Server> {
  const app = Fastify({
    logger: false,
    bodyLimit: work.bodyLimitBytes,
    genReqId: (req) => work.requestId(req.headers['x-request-id']),
  });
  app.decorateRequest('consumer', null);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
    done(null, body),
  );
  app.addHook('onRequest', async (request, reply) => {
    reply.headers(work.headers(request.id));
  });
  app.addHook('onResponse', async (request, reply) => {
    work.finish({
      requestId: request.id,
      method: request.method,
      route: request.routeOptions.url ?? null,
      status: reply.statusCode,
      durationMs: reply.elapsedTime,
      consumer: request.consumer,
    });
  });
  app.post(
    '/plants',
    {
      onRequest: async (request, reply) => {
        request.consumer = work.authenticate(request.headers.authorization);
        reply.headers(await work.limit(request.consumer));
      },
    },
    async (request, reply) => {
      const text = typeof request.body === 'string' ? request.body : '';
      const body = await work.create(work.parse(text));
      return reply.type('application/json').send(body);
    },
  );
  app.setNotFoundHandler(() => {
    throw new PeerFailure('notFound', 'No operation at this path');
  });
  app.setErrorHandler((error, _request, reply) => {
    const failure = work.failure(error);
    return reply
      .code(failure.status)
      .headers(failure.headers)
      .type('application/json')
      .send(failure.body);
  });
  await app.ready();
  return app.server;
}
