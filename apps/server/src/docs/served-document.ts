import { createHash } from 'node:crypto';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';

/** The built document's server: `/`, relative ("the server this document is served from"). */
const BUILT_SERVER = '"servers":[{"url":"/"';

/** A `Host` header that is a DNS name or an IP address, with an optional port, and no more. */
const HOST =
  /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** What `/openapi.json` sends: the document's bytes, their version, and their compressed forms. */
export interface ServedCopy {
  readonly identity: Buffer;
  /** 16 hex digits of the SHA-256 of `identity`: its ETag. */
  readonly hash: string;
  encoded(encoding: 'br' | 'gzip'): Buffer;
}

/**
 * The origin a request was made to (`http://127.0.0.1:3000`), from its protocol and `Host`
 * header; undefined when the header is missing or is not a plain host[:port].
 *
 * @example
 * requestOrigin('http', 'plants.example:8080'); // 'http://plants.example:8080'
 * requestOrigin('http', 'a.test/../x'); // undefined
 */
export function requestOrigin(protocol: string, host: string | undefined): string | undefined {
  return host && HOST.test(host) ? `${protocol}://${host.toLowerCase()}` : undefined;
}

/**
 * The OpenAPI document as each origin is sent it: `servers[0].url` is that origin, absolute, so
 * a client generated from `/openapi.json` (e.g. @hey-api/openapi-ts's) calls the server it was
 * generated from with no base URL set, and a tool reading `servers` gets a URL it can fetch.
 * Without an origin, the built document (`servers` `/`). The copies of the last `limit` origins
 * are kept, each compressed on first ask (a cache in front keys by host: deploy/nginx.conf).
 *
 * @example
 * const copyFor = servedDocument(built);
 * copyFor('http://127.0.0.1:3000').identity; // '{…"servers":[{"url":"http://127.0.0.1:3000",…'
 */
export function servedDocument(built: ServedCopy, limit = 16) {
  const text = built.identity.toString('utf8');
  const copies = new LRUCache<string, ServedCopy>({
    max: limit,
    memoMethod: (origin) =>
      copyOf(text.replace(BUILT_SERVER, `"servers":[{"url":${JSON.stringify(origin)}`)),
  });
  return (origin: string | undefined): ServedCopy =>
    origin === undefined || !text.includes(BUILT_SERVER) ? built : copies.memo(origin);
}

function copyOf(text: string): ServedCopy {
  const identity = Buffer.from(text);
  const encoded: { br?: Buffer; gzip?: Buffer } = {};
  return {
    identity,
    hash: createHash('sha256').update(identity).digest('hex').slice(0, 16),
    // Below the build's settings (brotli 11, gzip 9): a request can ask for a new origin.
    encoded: (encoding) =>
      (encoded[encoding] ??=
        encoding === 'br'
          ? brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } })
          : gzipSync(identity, { level: 6 })),
  };
}
