import { ERROR_ENTRIES, type ErrorName, MAX_JSON_DEPTH } from '@plant-store/schema';
import { EXAMPLE_BODY_LIMIT_BYTES } from '@plant-store/schema/openapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, injectUnmetExpectation, type TestApp } from './support/test-app.ts';

// The OpenAPI document the server publishes shows one example Error per catalog code. Each must be exactly what the
// server answers: the request below provokes the example's situation in the app (injected, in
// this process) and the answer must equal the example, code and message.

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

async function send(app: TestApp, path: string, init: RequestInit): Promise<Answer> {
  const response = await app.fetch(path, init);
  return { status: response.status, body: await response.json() };
}

let server: TestApp;
/** The body limit the document's 413 example was answered with (its description names it). */
const EXAMPLE_BODY_LIMIT = EXAMPLE_BODY_LIMIT_BYTES;

beforeAll(async () => {
  server = await createTestApp({ bodyLimitBytes: EXAMPLE_BODY_LIMIT });
  published = JSON.parse(await (await server.fetch('/openapi.json')).text());
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
  validationFailed: () => send(server, '/plants', json('{"id": 10, "wheels": 4}')),
  malformedJson: () => send(server, '/plants', json('{"id": 10, "name": }')),
  jsonTooDeep: () => send(server, '/plants', json(nested)),
  missingBody: () =>
    send(server, '/plants', {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}` },
    }),
  unauthorized: () => send(server, '/plants', { method: 'POST' }),
  notFound: () => send(server, '/plant', { method: 'GET' }),
  methodNotAllowed: () => send(server, '/plants', { method: 'GET' }),
  conflict: async () => {
    await send(server, '/plants', json('{"id": 10, "name": "Monstera", "tag": "indoor"}'));
    return send(server, '/plants', json('{"id": 10, "name": "Fern"}'));
  },
  payloadTooLarge: () =>
    send(server, '/plants', json(`{"id": 1, "name": "${'x'.repeat(EXAMPLE_BODY_LIMIT)}"}`)),
  unsupportedMediaType: () =>
    send(server, '/plants', json('{"id": 1, "name": "x"}', { 'content-type': 'text/plain' })),
  expectationFailed: async () => {
    const answer = await injectUnmetExpectation(server, {
      method: 'POST',
      url: '/plants',
      headers: { expect: '200-ok' },
    });
    return { status: answer.statusCode, body: answer.json() };
  },
  rateLimited: async () => {
    const limited = await createTestApp({
      rateLimit: { perSecond: 1, burst: 1, authFailuresPerMinute: 0 },
    });
    try {
      const init = { method: 'POST', headers: { authorization: `Bearer ${limited.token}` } };
      await send(limited, '/plants', init);
      return await send(limited, '/plants', init);
    } finally {
      await limited.dispose();
    }
  },
  storeUnavailable: async () => {
    const down = await createTestApp();
    try {
      await down.store.close();
      return await send(
        down,
        '/plants',
        json('{"id": 1, "name": "x"}', {
          authorization: `Bearer ${down.token}`,
        }),
      );
    } finally {
      await down.dispose();
    }
  },
};
/** Examples no injected request can provoke, and the test that sees the server send them. */
const PROVOKED_ELSEWHERE: Partial<Record<ErrorName, string>> = {
  malformedRequest:
    "needs bytes Node's HTTP parser refuses: test/e2e/http-server.test.ts sends them over a socket",
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
