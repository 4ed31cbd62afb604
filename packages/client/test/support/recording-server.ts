import {
  createServer,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the server received it: the exact body bytes, as text. */
export interface RecordedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** Answers request number `index` (0-based). May leave `response` open (to test timeouts). */
export type Responder = (request: RecordedRequest, response: ServerResponse, index: number) => void;

/** A real HTTP server on 127.0.0.1 that records every request it receives. */
export interface RecordingServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly requests: readonly RecordedRequest[];
  close(): Promise<void>;
}

/**
 * Starts a `node:http` server on 127.0.0.1, on a free port, that records each request and
 * lets `respond` answer it: the e2e tier's check that the wire carries what the unit tier's
 * in-process fetch (recording-fetch.ts) records.
 *
 * @example
 * const server = await startRecordingServer((_, res) => reply(res, 200, '{"name":"Fern"}'));
 */
export async function startRecordingServer(respond: Responder): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const recorded: RecordedRequest = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      respond(recorded, response, requests.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** Ends `response` with `status`, `body` and headers (JSON content type unless given). */
export function reply(
  response: ServerResponse,
  status: number,
  body: string,
  headers: OutgoingHttpHeaders = { 'content-type': 'application/json' },
): void {
  response.writeHead(status, headers);
  response.end(body);
}

/** The URL of a port that was just free and is now closed: connecting to it is refused. */
export async function closedPortUrl(): Promise<string> {
  const server = await startRecordingServer((_, response) => reply(response, 500, ''));
  await server.close();
  return server.url;
}
