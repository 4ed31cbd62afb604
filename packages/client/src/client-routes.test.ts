import { contract, defineCall, NewPlant, Plant } from '@plant-store/schema';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod/mini';
import { recordingFetch, reply } from '../test/support/recording-fetch.ts';
import { buildHttpRequest, callOperation } from './client.ts';
import { PlantStoreValidationError } from './errors.ts';
import { resolveClientConfig } from './options.ts';

// callOperation derives everything from the operation's entry, so another operation needs no
// new plumbing: here the public GET /healthz, a made-up bearer PUT and a GET with a path and a
// query parameter, each request recorded as the client hands it to `fetch` (no socket).

const BASE = 'http://api.test';

/** A made-up operation with a path parameter and a query parameter. */
const getThing = defineCall({
  operationId: 'getThing',
  method: 'get',
  path: '/things/{kind}/{id}',
  auth: 'bearer',
  params: z.object({
    kind: z.string(),
    id: z.pipe(
      z.string(),
      z.transform((text: string) => BigInt(text)),
    ),
  }),
  query: z.object({ verbose: z.optional(z.string()), tags: z.optional(z.string()) }),
  response: { status: 200, schema: Plant },
});

describe('callOperation', () => {
  it('calls a body-less public operation: GET, no credential, no body, typed result', async () => {
    const api = recordingFetch(() => reply(200, '{"status":"ok"}'));
    const config = resolveClientConfig({ baseUrl: BASE, token: 'tok', fetch: api.fetch });

    const health = await callOperation(config, contract.getHealth, {});

    expectTypeOf(health).toEqualTypeOf<{ status: 'ok' }>();
    expect(health).toEqual({ status: 'ok' });
    expect(api.requests).toEqual([
      { method: 'GET', url: `${BASE}/healthz`, headers: { accept: 'application/json' }, body: '' },
    ]);
  });

  it('takes method, path, body schema and response schema from any operation', async () => {
    const replacePlant = defineCall({
      operationId: 'replacePlant',
      method: 'put',
      path: '/plants-replace',
      auth: 'bearer',
      body: NewPlant,
      response: { status: 200, schema: Plant },
    });
    const api = recordingFetch(() => reply(200, '{"name":"Fern"}'));
    const config = resolveClientConfig({ baseUrl: BASE, token: 'tok', fetch: api.fetch });

    await expect(
      callOperation(config, replacePlant, { body: { id: 5n, name: 'Fern' } }),
    ).resolves.toEqual({ name: 'Fern' });
    expect(api.requests[0]).toMatchObject({
      method: 'PUT',
      url: `${BASE}/plants-replace`,
      body: '{"id":5,"name":"Fern"}',
    });
    await expect(
      callOperation(config, replacePlant, { body: { id: 5n, name: '' } }),
    ).rejects.toBeInstanceOf(PlantStoreValidationError);
    expect(api.requests).toHaveLength(1);
  });

  it('fills the path template, each value encoded, and sends the defined query parameters', async () => {
    const api = recordingFetch(() => reply(200, '{"name":"Fern"}'));
    const config = resolveClientConfig({ baseUrl: `${BASE}/v1/`, token: 'tok', fetch: api.fetch });

    const thing = await callOperation(config, getThing, {
      params: { kind: 'a/b c?', id: 2n ** 63n - 1n },
      query: { verbose: 'yes & no', tags: undefined },
    });

    expectTypeOf(thing).toEqualTypeOf<Plant>();
    expect(api.requests).toEqual([
      {
        method: 'GET',
        url: `${BASE}/v1/things/a%2Fb%20c%3F/9223372036854775807?verbose=yes+%26+no`,
        headers: { accept: 'application/json', authorization: 'Bearer tok' },
        body: '',
      },
    ]);
  });
});

const settings = { baseUrl: 'http://api.test/v1/', token: 'tok', timeoutMs: 500 };

describe('buildHttpRequest', () => {
  it('derives a bearer JSON POST from createPlant, the body checked and written exactly', () => {
    expect(
      buildHttpRequest(contract.createPlant, settings, { body: { id: 1n, name: 'Fern' } }),
    ).toEqual({
      url: 'http://api.test/v1/plants',
      method: 'POST',
      headers: { accept: 'application/json', authorization: 'Bearer tok' },
      body: '{"id":1,"name":"Fern"}',
      timeoutMs: 500,
    });
    expect(() =>
      buildHttpRequest(contract.createPlant, settings, { body: { id: 1, name: '' } }),
    ).toThrow(PlantStoreValidationError);
  });

  it('sends neither a credential nor a content type to a body-less public operation', () => {
    expect(buildHttpRequest(contract.getHealth, settings, {})).toEqual({
      url: 'http://api.test/v1/healthz',
      method: 'GET',
      headers: { accept: 'application/json' },
      body: undefined,
      timeoutMs: 500,
    });
  });

  it('sends every defined query value as its text, and none for an operation without any', () => {
    const { url } = buildHttpRequest(getThing, settings, {
      params: { kind: 'x', id: 10n },
      query: { verbose: 'true', tags: undefined },
    });
    expect(url).toBe('http://api.test/v1/things/x/10?verbose=true');
  });
});
