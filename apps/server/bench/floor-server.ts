import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { NewPlant, parseJson, stringifyJson, toPlant } from '@plant-store/schema';
import type { TokenRegistry } from '../src/auth/token-registry.ts';
import type { PlantStore } from '../src/store/plant-store.ts';

export interface FloorOptions {
  readonly store: PlantStore;
  readonly tokens: TokenRegistry;
  readonly bodyLimitBytes: number;
}

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * The `modules-floor` case: a bare `node:http` handler around the project's own modules — the
 * same bearer check (TokenRegistry), the same body limit, the same lossless parse and NewPlant
 * validation, the same store module and the same JSON answer — with no framework, request id,
 * log line, metrics or rate limit. It is not the floor (that is `peers/bare-server.ts`, which
 * uses no project module): set against the bare peer it prices the project's modules, set
 * against the deployed server it prices Koa and everything layered on it.
 *
 * @example
 * http.createServer(floorHandler({ store, tokens, bodyLimitBytes: 65536 })).listen(0);
 */
export function floorHandler(options: FloorOptions): RequestListener {
  const { store, tokens, bodyLimitBytes } = options;
  return (req, res) => {
    if (req.method !== 'POST' || req.url !== '/plants') return answer(res, 404, 'not found');
    const token = BEARER.exec(req.headers.authorization ?? '')?.[1];
    if (token === undefined) return answer(res, 401, 'unauthorized');
    if (!req.headers['content-type']?.startsWith('application/json')) {
      return answer(res, 415, 'unsupported media type');
    }
    Promise.resolve(tokens.authenticate(token)).then(
      async (credential) => {
        if (credential === undefined) return answer(res, 401, 'unauthorized');
        const text = await readBody(req, bodyLimitBytes);
        if (text === undefined) return answer(res, 413, 'too large');
        let value: unknown;
        try {
          value = parseJson(text);
        } catch {
          return answer(res, 400, 'malformed JSON');
        }
        const parsed = NewPlant.safeParse(value);
        if (!parsed.success) return answer(res, 400, 'invalid NewPlant');
        const outcome = await store.create(parsed.data);
        if (outcome === 'conflict') return answer(res, 409, 'conflict');
        const body = stringifyJson(toPlant(parsed.data));
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        });
        res.end(body);
      },
      () => answer(res, 500, 'internal'),
    );
  };
}

/** The body as UTF-8 text, or `undefined` when it is longer than `limit` bytes. */
function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    req.on('data', (chunk: Buffer) => {
      length += chunk.length;
      if (length <= limit) chunks.push(chunk);
    });
    req.on('end', () =>
      resolve(length > limit ? undefined : Buffer.concat(chunks, length).toString('utf8')),
    );
    req.on('error', reject);
  });
}

function answer(res: ServerResponse, status: number, message: string): void {
  const body = JSON.stringify({ error: status * 1000, message });
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}
