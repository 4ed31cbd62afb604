import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { errorBody, isJsonMediaType, PEER_ERRORS, type PeerError, plantBody } from './errors.ts';
import { checkNewPlant } from './new-plant-checks.ts';
import { nodePeerServer, type PeerOptions, type PeerServer } from './peer.ts';

/**
 * Peer (b), the bare floor: `node:http` and the least work a correct create needs — bearer
 * digest check, JSON media type, body limit, `JSON.parse`, the hand-written NewPlant checks,
 * the durable group commit, the Plant as JSON. No framework, no request id, no log line, and
 * no module of the project.
 *
 * @example
 * const url = await createBareServer({ commit, bearer, bodyLimitBytes: 65536 }).listen(0, '127.0.0.1');
 */
export function createBareServer(options: PeerOptions): PeerServer {
  const { commit, bearer, bodyLimitBytes } = options;
  const server = createServer((req, res) => {
    if (req.url !== '/plants') return fail(res, 'notFound', 'no operation at this path');
    if (req.method !== 'POST') return fail(res, 'methodNotAllowed', 'POST only');
    if (!bearer.accepts(req.headers.authorization)) {
      return fail(res, 'unauthorized', 'a valid bearer token is required');
    }
    if (!isJsonMediaType(req.headers['content-type'])) {
      return fail(res, 'unsupportedMediaType', 'the body must be application/json');
    }
    readBody(req, bodyLimitBytes, (text) => {
      if (text === undefined) return fail(res, 'payloadTooLarge', 'the body is too large');
      if (text === '') return fail(res, 'missingBody', 'a NewPlant body is required');
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return fail(res, 'malformedJson', 'the body is not valid JSON');
      }
      const row = checkNewPlant(value, text);
      if (typeof row === 'string') return fail(res, 'validationFailed', row);
      commit.create(row, (error, outcome) => {
        if (error !== undefined) return fail(res, 'internal', 'the create failed');
        if (outcome === 'conflict') return fail(res, 'conflict', 'a plant with this id exists');
        const body = plantBody(row.name, row.tag);
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        });
        res.end(body);
      });
    });
  });
  return nodePeerServer(server);
}

/** Calls `done` with the body as UTF-8 text, or `undefined` when it exceeds `limit` bytes. */
function readBody(req: IncomingMessage, limit: number, done: (text?: string) => void): void {
  const chunks: Buffer[] = [];
  let length = 0;
  req.on('data', (chunk: Buffer) => {
    length += chunk.length;
    if (length <= limit) chunks.push(chunk);
  });
  req.on('end', () => {
    if (length > limit) return done(undefined);
    done(
      chunks.length === 1
        ? (chunks[0] as Buffer).toString('utf8')
        : Buffer.concat(chunks).toString('utf8'),
    );
  });
}

function fail(res: ServerResponse, error: PeerError, message: string): void {
  const body = errorBody(error, message);
  res.writeHead(PEER_ERRORS[error].status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}
