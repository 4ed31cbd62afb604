import { createServer } from 'node:http';
import { Router } from '@koa/router';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import { errorBody, isJsonMediaType, PEER_ERRORS, type PeerError, plantBody } from './errors.ts';
import { checkNewPlant } from './new-plant-checks.ts';
import { nodePeerServer, type PeerOptions, type PeerServer } from './peer.ts';

class PeerHttpError extends Error {
  constructor(
    readonly error: PeerError,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Peer (d): stock Koa + @koa/router + koa-bodyparser doing the bare floor's work — the same
 * bearer digest check, JSON media type, body limit, the same hand-written NewPlant checks on
 * what koa-bodyparser parsed, the same durable group commit — in the framework's plain style:
 * one error middleware, one route with its middleware. No module of the project.
 *
 * @example
 * const url = await createKoaServer({ commit, bearer, bodyLimitBytes: 65536 }).listen(0, '127.0.0.1');
 */
export function createKoaServer(options: PeerOptions): PeerServer {
  const { commit, bearer, bodyLimitBytes } = options;
  const app = new Koa();
  app.use(async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new PeerHttpError('notFound', 'no operation at this path');
      }
    } catch (thrown) {
      const [error, message] = asPeerError(thrown);
      ctx.status = PEER_ERRORS[error].status;
      ctx.type = 'application/json';
      ctx.body = errorBody(error, message);
    }
  });
  const router = new Router();
  router.post(
    '/plants',
    async (ctx, next) => {
      if (!bearer.accepts(ctx.get('authorization') || undefined)) {
        throw new PeerHttpError('unauthorized', 'a valid bearer token is required');
      }
      if (!isJsonMediaType(ctx.get('content-type') || undefined)) {
        throw new PeerHttpError('unsupportedMediaType', 'the body must be application/json');
      }
      await next();
    },
    // raw-body takes the limit in bytes as a number; the typings only list strings ('64kb').
    bodyParser({
      enableTypes: ['json'],
      jsonLimit: bodyLimitBytes as unknown as string,
      strict: false,
    }),
    async (ctx) => {
      const raw = ctx.request.rawBody;
      if (raw === undefined || raw === '') {
        throw new PeerHttpError('missingBody', 'a NewPlant body is required');
      }
      const row = checkNewPlant(ctx.request.body, raw);
      if (typeof row === 'string') throw new PeerHttpError('validationFailed', row);
      if ((await commit.createAsync(row)) === 'conflict') {
        throw new PeerHttpError('conflict', 'a plant with this id exists');
      }
      ctx.type = 'application/json';
      ctx.body = plantBody(row.name, row.tag);
    },
  );
  app.use(router.routes());
  app.use(router.allowedMethods());
  return nodePeerServer(createServer(app.callback()));
}

/** What to answer for an error a middleware threw (koa-bodyparser's carry an HTTP status). */
function asPeerError(thrown: unknown): [PeerError, string] {
  if (thrown instanceof PeerHttpError) return [thrown.error, thrown.message];
  const status = (thrown as { status?: unknown } | null)?.status;
  if (status === 413) return ['payloadTooLarge', 'the body is too large'];
  if (status === 400) return ['malformedJson', 'the body is not valid JSON'];
  return ['internal', 'the create failed'];
}
