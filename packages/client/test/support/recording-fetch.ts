/** A request as the client handed it to `fetch`, read through `new Request(input, init)`. */
export interface RecordedRequest {
  readonly method: string;
  /** The whole URL, e.g. `http://api.test/plants?verbose=yes`. */
  readonly url: string;
  /** The request's headers, names in lower case (`Headers` order). */
  readonly headers: Readonly<Record<string, string>>;
  /** The exact body bytes as UTF-8 text (a byte that is not UTF-8 fails the test); `''` for none. */
  readonly body: string;
}

/**
 * Answers request number `index` (0-based): a `Response`, or a rejection as `fetch` gives one
 * ({@link refused}, {@link dropped}, {@link neverAnswers}). `signal` is the request's own: it
 * aborts when the client's timeout fires.
 */
export type Responder = (
  request: RecordedRequest,
  index: number,
  signal: AbortSignal,
) => Response | Promise<Response>;

/** A `fetch` in this process that records every request and lets a {@link Responder} answer. */
export interface RecordingFetch {
  readonly fetch: typeof globalThis.fetch;
  readonly requests: readonly RecordedRequest[];
}

// `fatal`: a body that is not UTF-8 throws instead of being patched with U+FFFD; `ignoreBOM`:
// a leading byte-order mark is kept, not swallowed. The text is then the bytes, one for one.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A `fetch` for the client's `fetch` option that records each request exactly as the client
 * sent it (method, URL, headers, body bytes) and answers with what `respond` returns: no
 * socket, no port. test/e2e/wire.test.ts checks that what it records is what the wire carries.
 *
 * @example
 * const api = recordingFetch(() => reply(200, '{"name":"Fern"}'));
 * await createPlantStoreClient({ baseUrl: 'http://api.test', token, fetch: api.fetch }).createPlant(…);
 * api.requests[0]?.body; // '{"id":1,"name":"Fern"}'
 */
export function recordingFetch(respond: Responder): RecordingFetch {
  const requests: RecordedRequest[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const recorded: RecordedRequest = {
      method: request.method,
      url: request.url,
      headers: Object.fromEntries(request.headers),
      body: utf8.decode(await request.arrayBuffer()),
    };
    requests.push(recorded);
    return respond(recorded, requests.length - 1, request.signal);
  };
  return { fetch, requests };
}

/**
 * A `Response` with `status`, the bytes of `body` (no content type added for them) and
 * `headers` (a JSON content type unless given); `statusText` as a server's reason phrase.
 */
export function reply(
  status: number,
  body: string,
  headers: Readonly<Record<string, string>> = { 'content-type': 'application/json' },
  statusText = '',
): Response {
  return new Response(new TextEncoder().encode(body), { status, statusText, headers });
}

/** An answer that never comes: rejects with the signal's reason once it aborts, as fetch does. */
export function neverAnswers(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/**
 * `answer()` after `ms` (on the timers, so fake timers drive it), or the signal's reason when
 * it aborts first.
 */
export function answerAfter(
  ms: number,
  signal: AbortSignal,
  answer: () => Response,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(answer()), ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

/** What Node's fetch (undici) rejects with when the connection to `url` is refused. */
export function refused(url: string): TypeError {
  const { hostname, port, protocol } = new URL(url);
  const to = `${hostname}:${port || (protocol === 'https:' ? 443 : 80)}`;
  const cause = Object.assign(new Error(`connect ECONNREFUSED ${to}`), {
    code: 'ECONNREFUSED',
    errno: -111,
    syscall: 'connect',
  });
  return new TypeError('fetch failed', { cause });
}

/** What Node's fetch rejects with when the server closes the connection without answering. */
export function dropped(): TypeError {
  const cause = Object.assign(new Error('other side closed'), {
    name: 'SocketError',
    code: 'UND_ERR_SOCKET',
  });
  return new TypeError('fetch failed', { cause });
}
