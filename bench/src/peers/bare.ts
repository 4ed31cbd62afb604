import { createServer, type IncomingMessage, type Server } from 'node:http';
import { JSON_TYPE, PeerFailure, type PeerWork } from './work.ts';

/**
 * The floor: `node:http` doing the shared work with nothing between it and the socket.
 *
 * @example
 * const server = createBarePeer(work); server.listen(0, '127.0.0.1');
 */
export function createBarePeer(work: PeerWork): Server {
  return createServer((req, res) => {
    const started = performance.now();
    const requestId = work.requestId(req.headers['x-request-id']);
    const path = req.url?.split('?')[0];
    let consumer: string | null = null;
    let limitHeaders: Record<string, string> = {};
    const send = (status: number, body: string, headers: Readonly<Record<string, string>>) => {
      res.writeHead(status, {
        ...work.headers(requestId),
        ...limitHeaders,
        ...headers,
        'Content-Type': JSON_TYPE,
        'Content-Length': Buffer.byteLength(body),
      });
      res.end(body);
      work.finish({
        requestId,
        method: req.method ?? '',
        route: path === '/plants' ? '/plants' : null,
        status,
        durationMs: performance.now() - started,
        consumer,
      });
    };
    const fail = (thrown: unknown) => {
      const failure = work.failure(thrown);
      send(failure.status, failure.body, failure.headers);
    };
    if (path !== '/plants') return fail(new PeerFailure('notFound', 'No operation at this path'));
    if (req.method !== 'POST') {
      return fail(new PeerFailure('methodNotAllowed', 'Use POST', { Allow: 'POST' }));
    }
    try {
      consumer = work.authenticate(req.headers.authorization);
    } catch (thrown) {
      return fail(thrown);
    }
    work
      .limit(consumer)
      .then((headers) => {
        limitHeaders = headers;
        work.requireJson(req.headers['content-type']);
        return readBody(req, work.bodyLimitBytes);
      })
      .then((text) => work.create(work.parse(text)))
      .then((body) => send(200, body, {}), fail);
  });
}

/** The body as UTF-8 text; a PeerFailure once it exceeds `limit` bytes. */
function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    req.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length <= limit) chunks.push(chunk);
    });
    req.on('error', reject);
    req.on('end', () => {
      if (length > limit) reject(new PeerFailure('payloadTooLarge', 'The body is too large'));
      else resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}
