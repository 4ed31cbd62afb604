import { type Agent, type IncomingHttpHeaders, request } from 'node:http';
import { connect } from 'node:net';

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

/**
 * Sends `raw` over a raw TCP socket with `Connection: close` and reads until the server closes,
 * as a careful client does when the server may answer before reading the whole body (a 10 MB
 * upload, a compression bomb): it sends the body 256 KiB at a time and, after each piece,
 * waits up to `answerWaitMs` for an early answer before sending more
 * (RFC 9112 §9.5: a client monitors the connection for an answer while it sends). Sending
 * on would make the server reset the connection, and Node destroys a socket on that write
 * error (EPIPE) before reading the answer already received.
 *
 * @example
 * const reply = await rawExchange(url, { method: 'POST', path: '/plants', headers, body: huge });
 * reply.status; // 413
 */
export function rawExchange(
  baseUrl: string,
  raw: RawRequest,
  answerWaitMs = 2_000,
): Promise<RawReply> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    let onAnswer: (() => void) | undefined;
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      onAnswer?.();
    });
    socket.on('error', () => undefined); // a reset once the answer is in
    socket.on('close', () => {
      onAnswer?.();
      try {
        resolve(parseReply(Buffer.concat(chunks)));
      } catch (error) {
        reject(error);
      }
    });
    /** Resolves true once an answer (or the close) arrives, false after `answerWaitMs`. */
    const answered = () =>
      chunks.length > 0 || socket.destroyed
        ? Promise.resolve(true)
        : new Promise<boolean>((done) => {
            const timer = setTimeout(() => done(false), answerWaitMs);
            onAnswer = () => {
              clearTimeout(timer);
              done(true);
            };
          });
    const lines = [`${raw.method} ${raw.path} HTTP/1.1`, `Host: ${hostname}`, 'Connection: close'];
    for (const [name, value] of Object.entries(raw.headers)) lines.push(`${name}: ${value}`);
    if (raw.body !== undefined) {
      lines.push(
        raw.chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${raw.body.byteLength}`,
      );
    }
    const body = raw.body;
    const size = body?.byteLength ?? 0;
    const framed =
      body === undefined || !raw.chunked
        ? body
        : Buffer.concat([
            Buffer.from(size > 0 ? `${size.toString(16)}\r\n` : ''),
            body,
            Buffer.from(size > 0 ? '\r\n0\r\n\r\n' : '0\r\n\r\n'),
          ]);
    // Never half-close: Node's server drops a request whose client has ended its side.
    void (async () => {
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (framed === undefined) return;
      for (let at = 0; at < framed.byteLength; at += PIECE_BYTES) {
        socket.write(framed.subarray(at, at + PIECE_BYTES));
        if (await answered()) return;
      }
    })();
  });
}

/** How much of a body `rawExchange` sends before it listens for an early answer. */
const PIECE_BYTES = 256 * 1024;

/** Reads one HTTP/1.1 response (with a Content-Length body) from `bytes`. */
function parseReply(bytes: Buffer): RawReply {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no complete response: ${JSON.stringify(bytes.toString('latin1'))}`);
  const [statusLine = '', ...headerLines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1];
  if (status === undefined) throw new Error(`not an HTTP/1.1 response: ${statusLine}`);
  const headers: IncomingHttpHeaders = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? bytes.length - end - 4);
  const body = bytes.subarray(end + 4, end + 4 + length);
  if (body.length !== length)
    throw new Error(`response body cut short: ${body.length} of ${length}`);
  return { status: Number(status), headers, text: body.toString('utf8') };
}
