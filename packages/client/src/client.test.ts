import { formatIssues, NewPlant, type NewPlantInput, type Plant } from '@plant-store/schema';
import { FetchError } from 'ofetch';
import { afterEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import {
  answerAfter,
  dropped,
  neverAnswers,
  type RecordingFetch,
  type Responder,
  recordingFetch,
  refused,
  reply,
} from '../test/support/recording-fetch.ts';
import { clientFromConfig, createPlantStoreClient } from './client.ts';
import { PlantStoreError, PlantStoreNetworkError, PlantStoreValidationError } from './errors.ts';
import { type PlantStoreClientOptions, resolveClientConfig } from './options.ts';
import { Pacer } from './pacer.ts';

// Protocol tests of the client alone, in this process: each request recorded as the client
// hands it to `fetch`, each answer a real `Response` (test/e2e/wire.test.ts holds the same
// bytes against a real socket). Waits between attempts are recorded, not waited; timeouts and
// dates run on vitest's fake timers: no real clock.

const BASE = 'http://api.test';
const TOKEN = 'test-token';
const MONSTERA = '{"name":"Monstera","tag":"indoor"}';
const CONFLICT =
  '{"error":40901,"message":"A plant with id 10 already exists with a different name or tag"}';
const UNAVAILABLE = '{"error":50301,"message":"The store is unavailable; retry later"}';
const RATE_LIMITED =
  '{"error":42901,"message":"Too many requests for this credential; retry after 1 second"}';

/** A 429 as the server sends it, with `retryAfter` as the Retry-After header when given. */
function tooMany(retryAfter?: string): Response {
  const headers = { 'content-type': 'application/json' };
  return reply(
    429,
    RATE_LIMITED,
    retryAfter === undefined ? headers : { ...headers, 'retry-after': retryAfter },
  );
}

/** The API, answering each request with `respond`: nothing leaves the process. */
const serve = (respond: Responder): RecordingFetch => recordingFetch(respond);

/** The waits between attempts the client asked for, in ms: recorded, not waited. */
const sleeps: number[] = [];
afterEach(() => {
  sleeps.length = 0;
  vi.useRealTimers();
});

/**
 * The client of `api` (at {@link BASE} unless `options.baseUrl` says otherwise) with the
 * options given, whose waits between attempts are recorded in `sleeps`.
 */
function clientFor(api: RecordingFetch, options: Partial<PlantStoreClientOptions> = {}) {
  const config = resolveClientConfig({
    baseUrl: BASE,
    token: TOKEN,
    retryDelayMs: 1,
    fetch: api.fetch,
    ...options,
  });
  return clientFromConfig({
    ...config,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
}

async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}

describe('createPlant: the request', () => {
  it('sends the exact bytes: bigint id unrounded, JSON and bearer headers', async () => {
    const api = serve(() => reply(200, MONSTERA));
    const plant = await clientFor(api).createPlant({
      id: 2n ** 63n - 1n,
      name: 'Monstera',
      tag: 'indoor',
    });

    expect(plant).toEqual({ name: 'Monstera', tag: 'indoor' });
    expect(api.requests).toHaveLength(1);
    const [request] = api.requests;
    expect(request).toEqual({
      method: 'POST',
      url: `${BASE}/plants`,
      // Every header the client sets, and no other.
      headers: {
        accept: 'application/json',
        authorization: `Bearer ${TOKEN}`,
        'content-type': 'application/json',
      },
      body: '{"id":9223372036854775807,"name":"Monstera","tag":"indoor"}',
    });
  });

  it('sends a number id and an absent tag as the schema outputs them', async () => {
    const api = serve(() => reply(200, '{"name":"Fern"}'));
    await clientFor(api).createPlant({ id: -42, name: 'Fern', tag: undefined });
    expect(api.requests[0]?.body).toBe('{"id":-42,"name":"Fern"}');
  });

  it('keeps a path prefix of baseUrl', async () => {
    const api = serve(() => reply(200, MONSTERA));
    await clientFor(api, { baseUrl: `${BASE}/api/v1/` }).createPlant({ id: 1, name: 'Monstera' });
    expect(api.requests[0]?.url).toBe(`${BASE}/api/v1/plants`);
  });

  it('sends with the fetch it is given, else with the global fetch', async () => {
    const given = serve(() => reply(200, MONSTERA));
    const global = serve(() => reply(200, MONSTERA));
    vi.stubGlobal('fetch', global.fetch);
    try {
      await clientFor(given).createPlant({ id: 1, name: 'Monstera' });
      expect(global.requests).toHaveLength(0);
      await createPlantStoreClient({ baseUrl: BASE, token: TOKEN }).createPlant({
        id: 2,
        name: 'Monstera',
      });
    } finally {
      vi.unstubAllGlobals();
    }
    expect(given.requests.map((request) => request.body)).toEqual(['{"id":1,"name":"Monstera"}']);
    expect(global.requests.map((request) => request.body)).toEqual(['{"id":2,"name":"Monstera"}']);
  });

  it('is typed from the schema package', () => {
    const client = clientFor(serve(() => reply(200, MONSTERA)));
    expectTypeOf(client.createPlant).parameter(0).toEqualTypeOf<NewPlantInput>();
    expectTypeOf(client.createPlant).returns.resolves.toEqualTypeOf<Plant>();
    // @ts-expect-error an id is a number or a bigint, never a string
    void client.createPlant({ id: '1', name: 'Fern' }).catch(() => {});
  });
});

describe('createPlant: invalid input', () => {
  const invalid: [string, unknown][] = [
    ['an unknown property', { id: 1, name: 'Fern', wheels: 4 }],
    ['an unsafe number id', { id: 2 ** 53, name: 'Fern' }],
    ['an id beyond int64', { id: 2n ** 63n, name: 'Fern' }],
    ['an empty name', { id: 1, name: '' }],
    ['a null tag', { id: 1, name: 'Fern', tag: null }],
    ['no body at all', undefined],
  ];

  it.each(invalid)(
    'refuses %s with PlantStoreValidationError and sends nothing',
    async (_, input) => {
      const api = serve(() => reply(200, MONSTERA));
      const error = await rejectionOf(clientFor(api).createPlant(input as NewPlantInput));

      expect(error).toBeInstanceOf(PlantStoreValidationError);
      expect(error).toBeInstanceOf(PlantStoreError);
      expect(error).toMatchObject({
        name: 'PlantStoreValidationError',
        operationId: 'createPlant',
        status: 400,
        code: 40001,
        attempts: 0,
      });
      const expected = NewPlant.safeParse(input).error?.issues ?? [];
      expect(expected.length).toBeGreaterThan(0);
      expect((error as PlantStoreValidationError).issues).toEqual(expected);
      expect((error as PlantStoreValidationError).message).toBe(formatIssues(expected));
      expect(api.requests).toHaveLength(0);
    },
  );
});

describe('createPlant: one error hierarchy', () => {
  it('rejects with a PlantStoreError whatever failed: bad input, an error answer, no answer', async () => {
    const api = serve(() => reply(409, CONFLICT));
    const down = serve((request) => {
      throw refused(request.url);
    });
    const failures = await Promise.all([
      rejectionOf(clientFor(api).createPlant({ id: 1, name: '' })),
      rejectionOf(clientFor(api).createPlant({ id: 10, name: 'Fern' })),
      rejectionOf(clientFor(down, { retries: 0 }).createPlant({ id: 1, name: 'Fern' })),
    ]);
    const caught = failures.map((error) =>
      error instanceof PlantStoreError
        ? [error.name, error.status, error.code]
        : 'missed by the catch',
    );
    expectTypeOf<PlantStoreValidationError>().toExtend<PlantStoreError>();
    expectTypeOf<PlantStoreNetworkError>().toExtend<PlantStoreError>();
    // The client's own refusal has the status and code the server answers the same body with.
    expect(caught).toEqual([
      ['PlantStoreValidationError', 400, 40001],
      ['PlantStoreError', 409, 40901],
      ['PlantStoreNetworkError', 0, undefined],
    ]);
  });

  it('says why an id beyond 2^53 given as a number is refused: pass a bigint', async () => {
    const api = serve(() => reply(200, MONSTERA));
    const client = clientFor(api);
    const error = await rejectionOf(client.createPlant({ id: 2 ** 60, name: 'Fern' }));
    expect(error).toBeInstanceOf(PlantStoreValidationError);
    expect((error as Error).message).toBe(
      'id: a number above 2^53 - 1 (Number.MAX_SAFE_INTEGER) is not exact: pass a bigint (got 1152921504606846976)',
    );
    expect(api.requests).toHaveLength(0);
    await expect(client.createPlant({ id: 2n ** 60n, name: 'Monstera' })).resolves.toEqual({
      name: 'Monstera',
      tag: 'indoor',
    });
    expect(api.requests[0]?.body).toBe('{"id":1152921504606846976,"name":"Monstera"}');
  });

  it('names the range and a bigint for a number id outside int64 too (2^64)', async () => {
    const api = serve(() => reply(200, MONSTERA));
    const error = await rejectionOf(clientFor(api).createPlant({ id: 2 ** 64, name: 'Fern' }));
    expect(error).toBeInstanceOf(PlantStoreValidationError);
    expect((error as Error).message).toBe(
      'id: must be an integer from -9223372036854775808 to 9223372036854775807, as a bigint beyond 2^53 - 1 (got the number 18446744073709551616)',
    );
    expect(api.requests).toHaveLength(0);
  });
});

describe('createPlant: error responses', () => {
  it('turns a 409 Error body into PlantStoreError with its code and message, not retried', async () => {
    const api = serve(() => reply(409, CONFLICT));
    const error = await rejectionOf(clientFor(api).createPlant({ id: 10, name: 'Fern' }));

    expect(error).toBeInstanceOf(PlantStoreError);
    expect(error).not.toBeInstanceOf(PlantStoreNetworkError);
    expect(error).toMatchObject({
      name: 'PlantStoreError',
      operationId: 'createPlant',
      status: 409,
      code: 40901,
      message: 'A plant with id 10 already exists with a different name or tag',
      retryAfter: undefined,
      attempts: 1,
    });
    expect(api.requests).toHaveLength(1);
  });

  it('does not retry a 500', async () => {
    const api = serve(() => reply(500, '{"error":50001,"message":"Internal server error"}'));
    const error = await rejectionOf(clientFor(api).createPlant({ id: 1, name: 'Fern' }));
    expect(error).toMatchObject({ status: 500, code: 50001, message: 'Internal server error' });
    expect(api.requests).toHaveLength(1);
  });

  it('gives a non-JSON 502 (an HTML page from a proxy) code undefined and a clear message, after retries', async () => {
    const html = '<html>\n<body><h1>502 Bad Gateway</h1></body>\n</html>';
    const api = serve(() => reply(502, html, { 'content-type': 'text/html' }, 'Bad Gateway'));
    const error = await rejectionOf(clientFor(api).createPlant({ id: 1, name: 'Fern' }));

    expect(error).toBeInstanceOf(PlantStoreError);
    expect(error).toMatchObject({ status: 502, code: undefined, attempts: 3 });
    expect((error as Error).message).toBe(
      'createPlant: the API answered 502 Bad Gateway without an Error body (text/html: "<html> <body><h1>502 Bad Gateway</h1></body> </html>")',
    );
    expect(api.requests).toHaveLength(3);
  });

  it('gives a non-JSON 500 and an empty 500 code undefined, without retrying', async () => {
    const api = serve((_, index) =>
      index === 0
        ? reply(500, 'Internal Server Error', { 'content-type': 'text/plain' })
        : reply(500, '', {}),
    );
    const client = clientFor(api);
    const plain = await rejectionOf(client.createPlant({ id: 1, name: 'Fern' }));
    const empty = await rejectionOf(client.createPlant({ id: 1, name: 'Fern' }));

    expect(plain).toMatchObject({ status: 500, code: undefined });
    expect((plain as Error).message).toContain('text/plain: "Internal Server Error"');
    expect(empty).toMatchObject({ status: 500, code: undefined });
    expect((empty as Error).message).toContain('no content-type, empty');
    expect(api.requests).toHaveLength(2);
  });

  it('gives JSON that is not an Error body code undefined', async () => {
    const api = serve(() => reply(400, '{"error":"bad","message":"x"}'));
    const error = await rejectionOf(clientFor(api).createPlant({ id: 1, name: 'Fern' }));
    expect(error).toMatchObject({ status: 400, code: undefined });
    expect((error as Error).message).toContain('without an Error body');
  });
});

describe('createPlant: a success response that breaks the contract', () => {
  it('refuses a 200 body that is not a Plant', async () => {
    const api = serve(() => reply(200, '{"name":"","tag":7}'));
    const error = await rejectionOf(clientFor(api).createPlant({ id: 1, name: 'Fern' }));

    expect(error).toBeInstanceOf(PlantStoreError);
    expect(error).toMatchObject({ status: 200, code: undefined, attempts: 1 });
    expect((error as Error).message).toBe(
      'createPlant: the 200 response does not match the contract: name: must not be empty; tag: must be a string, or left out (got a number)',
    );
    expect(api.requests).toHaveLength(1);
  });

  it('refuses a 200 body that is not JSON', async () => {
    const api = serve(() => reply(200, 'OK', { 'content-type': 'text/plain' }));
    const error = await rejectionOf(clientFor(api).createPlant({ id: 1, name: 'Fern' }));
    expect(error).toMatchObject({ status: 200, code: undefined });
    expect((error as Error).message).toBe(
      'createPlant: the 200 response is not JSON (text/plain: "OK")',
    );
  });

  it('refuses another 2xx than the contract declares', async () => {
    const api = serve(() => reply(201, MONSTERA));
    const error = await rejectionOf(clientFor(api).createPlant({ id: 1, name: 'Fern' }));
    expect(error).toMatchObject({ status: 201, code: undefined });
  });

  it('accepts a Plant with fields added by a later minor version, and drops them', async () => {
    const api = serve(() => reply(200, '{"name":"Fern","createdAt":"2025-01-01"}'));
    await expect(clientFor(api).createPlant({ id: 1, name: 'Fern' })).resolves.toEqual({
      name: 'Fern',
    });
  });
});

describe('createPlant: retries', () => {
  it('retries 503 twice, then succeeds, sending the same bytes each time', async () => {
    const api = serve((_, index) => (index < 2 ? reply(503, UNAVAILABLE) : reply(200, MONSTERA)));
    const plant = await clientFor(api).createPlant({
      id: 10n,
      name: 'Monstera',
      tag: 'indoor',
    });

    expect(plant).toEqual({ name: 'Monstera', tag: 'indoor' });
    expect(api.requests).toHaveLength(3);
    expect(new Set(api.requests.map((request) => request.body))).toEqual(
      new Set(['{"id":10,"name":"Monstera","tag":"indoor"}']),
    );
  });

  it('retries 502 and 504 as well', async () => {
    const api = serve((_, index) =>
      index === 0 ? reply(502, '') : index === 1 ? reply(504, '') : reply(200, MONSTERA),
    );
    await clientFor(api).createPlant({ id: 1, name: 'Monstera' });
    expect(api.requests).toHaveLength(3);
  });

  it('gives up after `retries` retries with the last error and its Retry-After', async () => {
    const api = serve(() =>
      reply(503, UNAVAILABLE, { 'content-type': 'application/json', 'retry-after': '0' }),
    );
    const error = await rejectionOf(
      clientFor(api, { retries: 4 }).createPlant({ id: 1, name: 'Fern' }),
    );
    expect(error).toMatchObject({ status: 503, code: 50301, retryAfter: 0, attempts: 5 });
    expect(api.requests).toHaveLength(5);
  });

  it('does not retry when retries is 0', async () => {
    const api = serve(() => reply(503, UNAVAILABLE));
    await rejectionOf(clientFor(api, { retries: 0 }).createPlant({ id: 1, name: 'Fern' }));
    expect(api.requests).toHaveLength(1);
  });

  it('waits the Retry-After seconds of a 503 before retrying', async () => {
    const api = serve((_, index) =>
      index === 0
        ? reply(503, UNAVAILABLE, { 'content-type': 'application/json', 'retry-after': '1' })
        : reply(200, MONSTERA),
    );
    await clientFor(api).createPlant({ id: 1, name: 'Monstera' });
    expect(api.requests).toHaveLength(2);
    expect(sleeps).toEqual([1_000]);
  });

  it('does not wait out a Retry-After longer than maxRetryDelayMs: it reports it', async () => {
    const api = serve(() =>
      reply(503, UNAVAILABLE, { 'content-type': 'application/json', 'retry-after': '120' }),
    );
    const error = await rejectionOf(clientFor(api).createPlant({ id: 1, name: 'Fern' }));
    expect(error).toMatchObject({ status: 503, code: 50301, retryAfter: 120, attempts: 1 });
    expect(api.requests).toHaveLength(1);
  });
});

describe('createPlant: pacing', () => {
  it('waits its turn with the Pacer it is given (the burst spent: one per 1/limit s), never without one', async () => {
    const spent = {
      'content-type': 'application/json',
      'x-ratelimit-limit': '10',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '1',
    };
    const api = serve(() => reply(200, MONSTERA, spent));
    const turns: number[] = [];
    // A clock that stands still: nothing refills between the calls.
    const pacer = new Pacer(
      async (ms) => {
        turns.push(ms);
      },
      () => 0,
    );
    const paced = clientFor(api, { pacer });
    for (let i = 0; i < 3; i++)
      await paced.createPlant({ id: 10, name: 'Monstera', tag: 'indoor' });
    expect(turns).toEqual([100]);
    const unpaced = clientFor(api);
    for (let i = 0; i < 3; i++)
      await unpaced.createPlant({ id: 10, name: 'Monstera', tag: 'indoor' });
    expect(turns).toEqual([100]);
    expect(sleeps).toEqual([]);
    expect(api.requests).toHaveLength(6);
  });
});

describe('createPlant: 429 Too Many Requests', () => {
  it('waits the Retry-After seconds of a 429, then succeeds with the same bytes', async () => {
    const api = serve((_, index) => (index === 0 ? tooMany('1') : reply(200, MONSTERA)));
    const plant = await clientFor(api).createPlant({ id: 10n, name: 'Monstera' });

    expect(plant).toEqual({ name: 'Monstera', tag: 'indoor' });
    expect(api.requests).toHaveLength(2);
    expect(api.requests[1]?.body).toBe(api.requests[0]?.body);
    // The Retry-After, not the 1 ms backoff.
    expect(sleeps).toEqual([1_000]);
  });

  it('waits a Retry-After given as an HTTP date', async () => {
    // The clock stands on a whole second (an HTTP date has no finer unit) and does not move.
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1, 12, 0, 0), toFake: ['Date'] });
    const api = serve((_, index) =>
      index === 0 ? tooMany(new Date(Date.now() + 2_000).toUTCString()) : reply(200, MONSTERA),
    );
    await clientFor(api).createPlant({ id: 1, name: 'Monstera' });

    expect(api.requests).toHaveLength(2);
    expect(sleeps).toEqual([2_000]);
  });

  it('does not wait out a Retry-After beyond maxRetryDelayMs: it reports 42901 with retryAfter', async () => {
    const api = serve(() => tooMany('2'));
    const error = await rejectionOf(
      clientFor(api, { maxRetryDelayMs: 1_500 }).createPlant({ id: 1, name: 'Fern' }),
    );

    expect(error).toBeInstanceOf(PlantStoreError);
    expect(error).not.toBeInstanceOf(PlantStoreNetworkError);
    expect(error).toMatchObject({
      status: 429,
      code: 42901,
      message: 'Too many requests for this credential; retry after 1 second',
      retryAfter: 2,
      attempts: 1,
    });
    expect(api.requests).toHaveLength(1);
  });

  it('reports an HTTP-date Retry-After beyond the cap as seconds from now', async () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 1, 12, 0, 0), toFake: ['Date'] });
    const api = serve(() => tooMany(new Date(Date.now() + 3_600_000).toUTCString()));
    const error = await rejectionOf(clientFor(api).createPlant({ id: 1, name: 'Fern' }));

    expect(error).toMatchObject({ status: 429, code: 42901, retryAfter: 3_600, attempts: 1 });
    expect(api.requests).toHaveLength(1);
  });

  it('is still bounded by `retries`, and the last 429 keeps its code and retryAfter', async () => {
    const api = serve(() => tooMany('0'));
    const error = await rejectionOf(
      clientFor(api, { retries: 3 }).createPlant({ id: 1, name: 'Fern' }),
    );
    expect(error).toMatchObject({ status: 429, code: 42901, retryAfter: 0, attempts: 4 });
    expect(api.requests).toHaveLength(4);
  });

  it('backs off on a 429 without Retry-After', async () => {
    const api = serve((_, index) => (index === 0 ? tooMany() : reply(200, MONSTERA)));
    await clientFor(api).createPlant({ id: 1, name: 'Monstera' });
    expect(api.requests).toHaveLength(2);
    expect(sleeps).toEqual([1]);
  });

  it.each([400, 401, 403, 404, 408, 409, 413, 415, 422])(
    'never retries a %i, even with a Retry-After',
    async (status) => {
      const api = serve(() =>
        reply(status, `{"error":${status}01,"message":"no"}`, {
          'content-type': 'application/json',
          'retry-after': '0',
        }),
      );
      const error = await rejectionOf(clientFor(api).createPlant({ id: 1, name: 'Fern' }));
      expect(error).toMatchObject({ status, code: status * 100 + 1, attempts: 1 });
      expect(api.requests).toHaveLength(1);
    },
  );
});

describe('createPlant: no response', () => {
  it('gives PlantStoreNetworkError (status 0, with the cause) for a refused connection, after retries', async () => {
    const url = 'http://127.0.0.1:9';
    const api = serve((request) => {
      throw refused(request.url);
    });
    const error = await rejectionOf(
      clientFor(api, { baseUrl: url }).createPlant({ id: 1, name: 'Fern' }),
    );

    expect(error).toBeInstanceOf(PlantStoreNetworkError);
    expect(error).toBeInstanceOf(PlantStoreError);
    expect(error).toMatchObject({
      name: 'PlantStoreNetworkError',
      status: 0,
      code: undefined,
      timedOut: false,
      attempts: 3,
      url: `${url}/plants`,
    });
    const { cause, message } = error as PlantStoreNetworkError;
    expect(cause).toBeInstanceOf(Error);
    expect(cause).not.toBeInstanceOf(FetchError);
    expect(message).toBe(
      'createPlant: request to http://127.0.0.1:9/plants failed (connect ECONNREFUSED 127.0.0.1:9); gave up after 3 attempts',
    );
    expect(api.requests).toHaveLength(3);
  });

  it('retries a dropped connection, and succeeds when the server comes back', async () => {
    const api = serve((_, index) => {
      if (index === 0) throw dropped();
      return reply(200, MONSTERA);
    });
    await expect(clientFor(api).createPlant({ id: 1, name: 'Monstera' })).resolves.toEqual({
      name: 'Monstera',
      tag: 'indoor',
    });
    expect(api.requests).toHaveLength(2);
  });

  it('times out each attempt after timeoutMs, retries, then gives PlantStoreNetworkError', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const api = serve((_, __, signal) => neverAnswers(signal));
    const failed = rejectionOf(
      clientFor(api, { timeoutMs: 150, retries: 1 }).createPlant({ id: 1, name: 'Fern' }),
    );
    await vi.advanceTimersByTimeAsync(149);
    expect(api.requests).toHaveLength(1); // not cut off before timeoutMs
    await vi.runAllTimersAsync();
    const error = await failed;

    expect(error).toBeInstanceOf(PlantStoreNetworkError);
    expect(error).toMatchObject({ status: 0, timedOut: true, attempts: 2 });
    expect((error as Error).message).toMatch(/\/plants timed out; gave up after 2 attempts$/);
    expect((error as Error).cause).toMatchObject({ name: 'TimeoutError' });
    // The retry reached the server too: each attempt gets its own timeout.
    expect(api.requests).toHaveLength(2);
  });

  it('answers within timeoutMs for a slow but timely server', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const api = serve((_, __, signal) => answerAfter(999, signal, () => reply(200, MONSTERA)));
    const answered = clientFor(api, { timeoutMs: 1_000 }).createPlant({ id: 1, name: 'Monstera' });
    await vi.runAllTimersAsync();
    await expect(answered).resolves.toEqual({ name: 'Monstera', tag: 'indoor' });
    expect(api.requests).toHaveLength(1);
  });
});
