import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

// A stand-in instance that parses what a proxy sends with Node's own HTTP parser (the one the
// server's instances use) and records each request as it saw it: where one request ends and
// the next begins, by the instance's reading. It answers the proxies' health checks and every
// other request 200 with a body naming what it read (`GET /path 0`: method, target, body
// bytes), so that a client's answers tell which request each one answers. An Upgrade or a
// CONNECT Node hands over as such is recorded too (`upgraded`) and answered 200, as a naive
// instance would: no proxy should pass one on. Each request Node could not parse is recorded
// by its parser's error code, and answered 400 (as the server does).
// How a test tells that an instance never reads a request boundary other than the proxy's.

export interface ParsedRequest {
  readonly method: string;
  readonly url: string;
  /** The body as the instance read it, latin1. */
  readonly body: string;
  /** Its headers as Node reads them (names in lower case, repeated ones joined). */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The trailer fields of a chunked body, as Node reads them. */
  readonly trailers: Readonly<Record<string, string | undefined>>;
  /** True when Node handed it over as an Upgrade or a CONNECT, not as a request. */
  readonly upgraded: boolean;
  /** Its place among the requests all parsing upstreams of this process read. */
  readonly order: number;
}

let readSoFar = 0;

/** What the instance answers a request with: its method, target and body length. */
export function answerFor(request: Pick<ParsedRequest, 'method' | 'url' | 'body'>): string {
  return `${request.method} ${request.url} ${request.body.length}`;
}

export interface ParsingUpstream {
  /** The requests other than health checks, in the order their bodies ended. */
  readonly requests: readonly ParsedRequest[];
  /** The parser errors (e.g. `HPE_INVALID_CONTENT_LENGTH`) of requests Node refused. */
  readonly parseErrors: readonly string[];
  reset(): void;
  close(): Promise<void>;
}

const HEALTH = /^\/(readyz|healthz)$/;

/** Listens on 127.0.0.1:`port` (from `freePort`). */
export async function startParsingUpstream(port: number): Promise<ParsingUpstream> {
  const requests: ParsedRequest[] = [];
  const parseErrors: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const parsed = {
        method: request.method ?? '',
        url: request.url ?? '',
        body: Buffer.concat(chunks).toString('latin1'),
        headers: request.headers,
        trailers: request.trailers,
        upgraded: false,
        order: readSoFar++,
      };
      if (!HEALTH.test(parsed.url)) requests.push(parsed);
      response.setHeader('content-type', 'text/plain');
      response.end(answerFor(parsed));
    });
  });
  const handOver = (request: IncomingMessage, socket: Duplex) => {
    const parsed = {
      method: request.method ?? '',
      url: request.url ?? '',
      body: '',
      headers: request.headers,
      trailers: {},
      upgraded: true,
      order: readSoFar++,
    };
    requests.push(parsed);
    const body = answerFor(parsed);
    socket.on('error', () => socket.destroy());
    socket.end(
      `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
  server.on('upgrade', handOver);
  server.on('connect', handOver);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    // Answered and closed, as the server's instances do (an answer: no proxy retries it).
    parseErrors.push(error.code ?? String(error));
    socket.on('error', () => socket.destroy());
    socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    requests,
    parseErrors,
    reset: () => {
      requests.length = 0;
      parseErrors.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
