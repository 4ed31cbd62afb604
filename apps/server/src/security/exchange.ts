import { type Agent, type IncomingHttpHeaders, request } from 'node:http';

/** One HTTP request, as bytes on the wire: any method, path, headers and framing. */
export interface RawRequest {
  readonly method: string;
  /** Path and query, sent as given (`/plants?x=1`). */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** No body at all when absent. */
  readonly body?: Uint8Array;
  /** Send the body with `Transfer-Encoding: chunked` instead of `Content-Length`. */
  readonly chunked?: boolean;
}

/** The answer to a {@link RawRequest}: status, headers and the body as text. */
export interface RawReply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

/**
 * Sends `raw` to `baseUrl` with `node:http` (which, unlike `fetch`, sends any header and
 * framing) and resolves with the whole reply. A server that answers before reading the whole
 * body and closes (401, 413, 415…) is fine: the reply counts, a write error after it does not.
 *
 * @example
 * const reply = await exchange(server.url, { method: 'POST', path: '/plants', headers: {} });
 * reply.status; // 401
 */
export function exchange(baseUrl: string, raw: RawRequest, agent?: Agent): Promise<RawReply> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...raw.headers };
    if (raw.body !== undefined) {
      if (raw.chunked) headers['transfer-encoding'] = 'chunked';
      else headers['content-length'] = String(raw.body.byteLength);
    }
    let responded = false;
    const outgoing = request(
      { host: hostname, port: Number(port), method: raw.method, path: raw.path, headers, agent },
      (incoming) => {
        responded = true;
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', reject);
        incoming.on('end', () =>
          resolve({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    outgoing.on('error', (error) => {
      // After a response started, a broken pipe only means the server stopped reading.
      if (!responded) reject(error);
    });
    if (raw.body === undefined) {
      outgoing.end();
    } else if (raw.chunked) {
      if (raw.body.byteLength > 0) outgoing.write(raw.body);
      outgoing.end();
    } else {
      outgoing.end(raw.body);
    }
  });
}
