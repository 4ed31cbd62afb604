import { ERROR_ENTRIES, type ErrorName, MAX_JSON_DEPTH } from '@plant-store/schema';
import { EXAMPLE_BODY_LIMIT_BYTES } from '@plant-store/schema/openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendRawBytes } from './support/raw-socket.ts';
import { startTestServer, type TestServer } from './support/start-test-server.ts';

// The OpenAPI document the server publishes shows one example Error per catalog code. Each must be exactly what the
// server answers: the request below provokes the example's situation on the real server (over
// HTTP on 127.0.0.1, in this process) and the answer must equal the example, code and message.

type Examples = Record<string, { value: { error: number; message: string } }>;
interface PublishedDocument {
  components: {
    responses: Record<string, { content: { 'application/json': { examples: Examples } } }>;
  };
}
/** The document the server publishes at /openapi.json. */
let published: PublishedDocument;
const example = (name: ErrorName) =>
  Object.values(published.components.responses)
    .map((response) => response.content['application/json'].examples[name])
    .find((found) => found !== undefined)?.value;

/** An answer as status and Error body. */
interface Answer {
  readonly status: number;
  readonly body: unknown;
}

async function send(url: string, init: RequestInit): Promise<Answer> {
  const response = await fetch(url, init);
  return { status: response.status, body: await response.json() };
}

/** The status and body of a raw HTTP/1.1 answer (the server closes the connection after it). */
async function sendRaw(baseUrl: string, bytes: string): Promise<Answer> {
  const text = await sendRawBytes(baseUrl, bytes);
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1]);
  return { status, body: JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) };
}

let server: TestServer;
/** The body limit the document's 413 example was answered with (its description names it). */
const EXAMPLE_BODY_LIMIT = EXAMPLE_BODY_LIMIT_BYTES;

beforeAll(async () => {
  server = await startTestServer({ bodyLimitBytes: EXAMPLE_BODY_LIMIT });
  published = JSON.parse(await (await fetch(`${server.url}/openapi.json`)).text());
});
afterAll(async () => {
  await server.dispose();
});

const json = (body: string, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: {
    authorization: `Bearer ${server.token}`,
    'content-type': 'application/json',
    ...headers,
  },
  body,
});
const nested = `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`;

/** How to make the server send each example, on the shared server. */
const PROVOKE: Partial<Record<ErrorName, () => Promise<Answer>>> = {
  validationFailed: () => send(`${server.url}/plants`, json('{"id": 10, "wheels": 4}')),
  malformedJson: () => send(`${server.url}/plants`, json('{"id": 10, "name": }')),
  jsonTooDeep: () => send(`${server.url}/plants`, json(nested)),
  missingBody: () =>
    send(`${server.url}/plants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}` },
    }),
  malformedRequest: () => sendRaw(server.url, 'BREW /plants HTCPCP\r\n\r\n'),
  unauthorized: () => send(`${server.url}/plants`, { method: 'POST' }),
  notFound: () => send(`${server.url}/plant`, { method: 'GET' }),
  methodNotAllowed: () => send(`${server.url}/plants`, { method: 'GET' }),
  conflict: async () => {
    await send(`${server.url}/plants`, json('{"id": 10, "name": "Monstera", "tag": "indoor"}'));
    return send(`${server.url}/plants`, json('{"id": 10, "name": "Fern"}'));
  },
  payloadTooLarge: () =>
    send(`${server.url}/plants`, json(`{"id": 1, "name": "${'x'.repeat(EXAMPLE_BODY_LIMIT)}"}`)),
  unsupportedMediaType: () =>
    send(`${server.url}/plants`, json('{"id": 1, "name": "x"}', { 'content-type': 'text/plain' })),
  expectationFailed: () =>
    sendRaw(
      server.url,
      'POST /plants HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nConnection: close\r\nContent-Length: 0\r\n\r\n',
    ),
  rateLimited: async () => {
    const limited = await startTestServer({
      rateLimit: { perSecond: 1, burst: 1, authFailuresPerMinute: 0 },
    });
    try {
      const init = { method: 'POST', headers: { authorization: `Bearer ${limited.token}` } };
      await send(`${limited.url}/plants`, init);
      return await send(`${limited.url}/plants`, init);
    } finally {
      await limited.dispose();
    }
  },
  storeUnavailable: async () => {
    const down = await startTestServer();
    try {
      await down.store.close();
      return await send(
        `${down.url}/plants`,
        json('{"id": 1, "name": "x"}', {
          authorization: `Bearer ${down.token}`,
        }),
      );
    } finally {
      await down.dispose();
    }
  },
};
/** Examples no in-process request can provoke, and the test that sees the server send them. */
const PROVOKED_ELSEWHERE: Partial<Record<ErrorName, string>> = {
  requestTimeout:
    'needs the request timeout to pass: test/e2e/http-timeouts.test.ts sees it (a 2-s timeout)',
  internal: 'needs a failure the server does not expect: src/http/internal-error.test.ts',
};

describe('the OpenAPI error examples', () => {
  it('cover every catalog code, each provoked here or named with the test that sees it', () => {
    const covered = [...Object.keys(PROVOKE), ...Object.keys(PROVOKED_ELSEWHERE)].sort();
    expect(covered).toEqual(ERROR_ENTRIES.map((entry) => entry.name).sort());
  });

  it.each(ERROR_ENTRIES.filter((entry) => PROVOKE[entry.name] !== undefined))(
    '$code ($name) is what the server sends',
    async ({ name, status }) => {
      const answer = await PROVOKE[name]?.();
      expect(answer).toEqual({ status, body: example(name) });
    },
  );
});
