import Fastify, { type FastifyError } from 'fastify';
import { errorBody, PEER_ERRORS, type PeerError } from './errors.ts';
import { exactInt64 } from './int64-id.ts';
import { NAME_MAX, TAG_MAX } from './new-plant-checks.ts';
import type { PeerOptions, PeerServer } from './peer.ts';

/** Where the content-type parser leaves an id too large for a double (ajv ignores symbol keys). */
const EXACT_ID = Symbol('exact id');

// The NewPlant rules as JSON Schema: ajv counts maxLength in code points, and its patterns run
// with the `u` flag, so \p{Cc} is a control character and \p{Cs} a lone surrogate.
const text = (maxLength: number) => ({
  type: 'string',
  minLength: 1,
  maxLength,
  pattern: '^[^\\p{Cc}\\p{Cs}]*$',
});
const NEW_PLANT = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name'],
  properties: { id: { type: 'integer' }, name: text(NAME_MAX), tag: text(TAG_MAX) },
} as const;
const PLANT = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string' }, tag: { type: 'string' } },
} as const;

interface NewPlantBody {
  id: number;
  name: string;
  tag?: string;
  [EXACT_ID]?: bigint;
}

/**
 * Peer (c): Fastify doing the bare floor's work its own way — the bearer digest check in the
 * route's `onRequest` hook, its body limit and media-type handling, `JSON.parse` in a content-type
 * parser that keeps an id beyond 2^53 exact (the same `exactInt64`), its JSON-schema (ajv)
 * validation of NewPlant, the same durable group commit, and its schema-compiled serializer for
 * the Plant. Ajv is set to refuse, not remove, unknown keys and to coerce nothing (Fastify's
 * defaults would drop an unknown key and turn `"7"` into 7). No module of the project.
 *
 * @example
 * const url = await createFastifyServer({ commit, bearer, bodyLimitBytes: 65536 }).listen(0, '127.0.0.1');
 */
export function createFastifyServer(options: PeerOptions): PeerServer {
  const { commit, bearer, bodyLimitBytes } = options;
  const app = Fastify({
    bodyLimit: bodyLimitBytes,
    logger: false,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false } },
  });
  // JSON only: Fastify's own text/plain parser would hand a string to the schema (a 400, not a 415).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const json = body as string;
    if (json === '') return done(peerError('missingBody', 'a NewPlant body is required'));
    let value: unknown;
    try {
      value = JSON.parse(json);
    } catch {
      return done(peerError('malformedJson', 'the body is not valid JSON'));
    }
    const id = (value as { id?: unknown } | null)?.id;
    if (typeof id === 'number' && !Number.isSafeInteger(id) && Number.isInteger(id)) {
      const exact = exactInt64(id, json);
      if (exact === undefined) {
        return done(peerError('validationFailed', 'id must be an integer from -2^63 to 2^63-1'));
      }
      (value as NewPlantBody)[EXACT_ID] = exact as bigint;
    }
    done(null, value);
  });
  app.post<{ Body: NewPlantBody }>(
    '/plants',
    {
      schema: { body: NEW_PLANT, response: { 200: PLANT } },
      onRequest: (request, reply, done) => {
        if (bearer.accepts(request.headers.authorization)) return done();
        reply
          .code(401)
          .type('application/json')
          .send(errorBody('unauthorized', 'a valid bearer token is required'));
      },
    },
    async (request, reply) => {
      const { id, name, tag } = request.body;
      const outcome = await commit.createAsync({ id: request.body[EXACT_ID] ?? id, name, tag });
      if (outcome === 'conflict') {
        return reply
          .code(409)
          .type('application/json')
          .send(errorBody('conflict', 'a plant with this id exists'));
      }
      return tag === undefined ? { name } : { name, tag };
    },
  );
  app.setNotFoundHandler((_request, reply) => {
    reply
      .code(404)
      .type('application/json')
      .send(errorBody('notFound', 'no operation at this path'));
  });
  app.setErrorHandler((error: FastifyError & { peerError?: PeerError }, _request, reply) => {
    const peer = error.peerError ?? fromFastify(error);
    reply
      .code(PEER_ERRORS[peer].status)
      .type('application/json')
      .send(errorBody(peer, error.message));
  });
  return {
    listen: (port, host) => app.listen({ port, host }),
    close: () => app.close(),
  };
}

function peerError(peer: PeerError, message: string): Error {
  return Object.assign(new Error(message), {
    peerError: peer,
    statusCode: PEER_ERRORS[peer].status,
  });
}

function fromFastify(error: FastifyError): PeerError {
  if (error.validation !== undefined) return 'validationFailed';
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return 'unsupportedMediaType';
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return 'payloadTooLarge';
  if (error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return 'missingBody';
  return 'internal';
}
