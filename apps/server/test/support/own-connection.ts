import { type ClientRequest, type IncomingHttpHeaders, request } from 'node:http';

// A create (POST /plants) on a connection of its own (node:http, no agent): for a test that
// picks the local address or holds a request in flight part-sent.

export interface CreateAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface CreateOptions {
  /** Headers beside the credential, Content-Type and Content-Length. */
  readonly headers?: Record<string, string>;
  /** The local address to connect from (any of 127.0.0.0/8 reaches the server). */
  readonly localAddress?: string;
}

/**
 * A create of `body` with `token`, its Content-Length that of `body`, and nothing written yet:
 * the caller writes the body (in parts, to hold it in flight) and ends `request`. `answer`
 * resolves once the response is read to its end, and rejects on a connection error.
 *
 * @example
 * const { request, answer } = startCreate(url, token, body);
 * request.write(body.slice(0, 10)); // the server has the headers and part of the body
 * request.end(body.slice(10));
 * (await answer).status; // 200
 */
export function startCreate(
  url: string,
  token: string,
  body: string,
  options: CreateOptions = {},
): { readonly request: ClientRequest; readonly answer: Promise<CreateAnswer> } {
  const outgoing = request(`${url}/plants`, {
    method: 'POST',
    agent: false,
    ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      ...options.headers,
    },
  });
  const answer = new Promise<CreateAnswer>((resolve, reject) => {
    outgoing.on('response', (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }),
      );
    });
    outgoing.on('error', reject);
  });
  return { request: outgoing, answer };
}

/** `startCreate` with the whole body sent at once; the answer. */
export function sendCreate(
  url: string,
  token: string,
  body: string,
  options: CreateOptions = {},
): Promise<CreateAnswer> {
  const { request, answer } = startCreate(url, token, body, options);
  request.end(body);
  return answer;
}
