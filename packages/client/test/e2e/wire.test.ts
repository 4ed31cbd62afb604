import { contract } from '@plant-store/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callOperation, createPlantStoreClient } from '../../src/client.ts';
import { PlantStoreNetworkError } from '../../src/errors.ts';
import { resolveClientConfig } from '../../src/options.ts';
import {
  dropped,
  type RecordedRequest,
  recordingFetch,
  refused,
  reply,
} from '../support/recording-fetch.ts';
import {
  closedPortUrl,
  type RecordingServer,
  reply as replyOnWire,
  startRecordingServer,
} from '../support/recording-server.ts';

// The unit tier sends through an in-process fetch (test/support/recording-fetch.ts). Here the
// same calls go over a real socket to a node:http server: the wire carries every header and
// byte that fetch recorded, and a refused or dropped connection fails the way it imitates.

const TOKEN = 'wire-token';
const PLANT = { id: 2n ** 63n - 1n, name: 'Monstera', tag: 'indoor' };
const MONSTERA = '{"name":"Monstera","tag":"indoor"}';

let server: RecordingServer;
beforeAll(async () => {
  server = await startRecordingServer((request, res) =>
    replyOnWire(res, 200, request.url === '/healthz' ? '{"status":"ok"}' : MONSTERA),
  );
});
afterAll(async () => {
  await server.close();
});

/** What the in-process fetch records for `call`, made with a client sending with `fetch`. */
async function recorded(
  call: (fetch: typeof globalThis.fetch) => Promise<unknown>,
): Promise<RecordedRequest> {
  const api = recordingFetch((request) =>
    reply(200, request.url.endsWith('/healthz') ? '{"status":"ok"}' : MONSTERA),
  );
  await call(api.fetch);
  expect(api.requests).toHaveLength(1);
  return api.requests[0] as RecordedRequest;
}

/** The request the server received for `call`, made with a client on the global fetch. */
async function onTheWire(call: () => Promise<unknown>) {
  const before = server.requests.length;
  await call();
  expect(server.requests).toHaveLength(before + 1);
  return server.requests[before];
}

describe('the wire carries what the in-process fetch records', () => {
  it('createPlant: method, path, every header the client sets, the exact body bytes', async () => {
    const client = (fetch?: typeof globalThis.fetch) =>
      createPlantStoreClient({ baseUrl: server.url, token: TOKEN, ...(fetch ? { fetch } : {}) });
    const sent = await recorded((fetch) => client(fetch).createPlant(PLANT));
    const wire = await onTheWire(() => client().createPlant(PLANT));

    expect(wire?.method).toBe(sent.method);
    expect(`${server.url}${wire?.url}`).toBe(sent.url);
    expect(wire?.body).toBe('{"id":9223372036854775807,"name":"Monstera","tag":"indoor"}');
    expect(wire?.body).toBe(sent.body);
    expect(wire?.headers).toMatchObject({
      accept: 'application/json',
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
    });
    expect(wire?.headers).toMatchObject(sent.headers);
  });

  it('a body-less public operation: no credential, no content type, no body', async () => {
    const config = (fetch?: typeof globalThis.fetch) =>
      resolveClientConfig({ baseUrl: server.url, token: TOKEN, ...(fetch ? { fetch } : {}) });
    const sent = await recorded((fetch) => callOperation(config(fetch), contract.getHealth, {}));
    const wire = await onTheWire(() => callOperation(config(), contract.getHealth, {}));

    expect(wire).toMatchObject({ method: 'GET', url: '/healthz', body: '' });
    expect(wire?.headers).toMatchObject(sent.headers);
    expect(wire?.headers.authorization).toBeUndefined();
    expect(wire?.headers['content-type']).toBeUndefined();
  });
});

describe('a connection that fails fails as the in-process fetch imitates it', () => {
  /** The client's error for one attempt at `baseUrl`, with `fetch` or the global one. */
  async function networkError(baseUrl: string, fetch?: typeof globalThis.fetch) {
    const client = createPlantStoreClient({
      baseUrl,
      token: TOKEN,
      retries: 0,
      ...(fetch ? { fetch } : {}),
    });
    const error = await client.createPlant({ id: 1, name: 'Fern' }).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(PlantStoreNetworkError);
    return error as PlantStoreNetworkError;
  }

  it('refused: the same TypeError, cause code and message', async () => {
    const url = await closedPortUrl();
    const real = await networkError(url);
    const imitated = await networkError(
      url,
      recordingFetch((request) => {
        throw refused(request.url);
      }).fetch,
    );
    expect(imitated.message).toBe(real.message);
    expect(imitated.cause).toMatchObject({
      name: (real.cause as Error).name,
      message: (real.cause as Error).message,
      cause: {
        code: 'ECONNREFUSED',
        message: ((real.cause as Error).cause as Error).message,
      },
    });
    expect(real.cause).toMatchObject({ cause: { code: 'ECONNREFUSED' } });
  });

  it('dropped: the same TypeError, cause name, code and message', async () => {
    const dropping = await startRecordingServer((_, res) => res.socket?.destroy());
    try {
      const real = await networkError(dropping.url);
      const imitated = await networkError(
        dropping.url,
        recordingFetch(() => {
          throw dropped();
        }).fetch,
      );
      expect(imitated.message).toBe(real.message);
      const cause = (real.cause as Error).cause as Error & { code?: string };
      expect(imitated.cause).toMatchObject({
        name: (real.cause as Error).name,
        message: (real.cause as Error).message,
        cause: { name: cause.name, code: cause.code, message: cause.message },
      });
    } finally {
      await dropping.close();
    }
  });
});
