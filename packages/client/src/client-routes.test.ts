import { contract, defineRoute, NewPlant, Plant } from '@plant-store/schema';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import {
  type RecordingServer,
  reply,
  startRecordingServer,
} from '../test/support/recording-server.ts';
import { buildHttpRequest, callRoute } from './client.ts';
import { PlantStoreValidationError } from './errors.ts';
import { resolveClientConfig } from './options.ts';

// callRoute derives everything from the route, so another route needs no new plumbing:
// here the public GET /healthz, and a made-up bearer PUT, against a real server.

let server: RecordingServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('callRoute', () => {
  it('calls a body-less public route: GET, no credential, no body, typed result', async () => {
    server = await startRecordingServer((_, res) => reply(res, 200, '{"status":"ok"}'));
    const config = resolveClientConfig({ baseUrl: server.url, token: 'tok' });

    const health = await callRoute(config, contract.getHealth, undefined);

    expectTypeOf(health).toEqualTypeOf<{ status: 'ok' }>();
    expect(health).toEqual({ status: 'ok' });
    const [request] = server.requests;
    expect(request).toMatchObject({ method: 'GET', url: '/healthz', body: '' });
    expect(request?.headers.authorization).toBeUndefined();
    expect(request?.headers['content-type']).toBeUndefined();
  });

  it('takes method, path, body schema and response schema from any route', async () => {
    const replacePlant = defineRoute({
      ...contract.createPlant,
      operationId: 'replacePlant',
      method: 'put',
      path: '/plants-replace',
      body: NewPlant,
      response: { ...contract.createPlant.response, schema: Plant },
    });
    server = await startRecordingServer((_, res) => reply(res, 200, '{"name":"Fern"}'));
    const config = resolveClientConfig({ baseUrl: server.url, token: 'tok' });

    await expect(callRoute(config, replacePlant, { id: 5n, name: 'Fern' })).resolves.toEqual({
      name: 'Fern',
    });
    expect(server.requests[0]).toMatchObject({
      method: 'PUT',
      url: '/plants-replace',
      body: '{"id":5,"name":"Fern"}',
    });
    await expect(callRoute(config, replacePlant, { id: 5n, name: '' })).rejects.toBeInstanceOf(
      PlantStoreValidationError,
    );
    expect(server.requests).toHaveLength(1);
  });
});

const settings = { baseUrl: 'http://api.test/v1/', token: 'tok', timeoutMs: 500 };

describe('buildHttpRequest', () => {
  it('derives a bearer JSON POST from createPlant', () => {
    expect(buildHttpRequest(contract.createPlant, settings, '{"id":1,"name":"Fern"}')).toEqual({
      url: 'http://api.test/v1/plants',
      method: 'POST',
      headers: { accept: 'application/json', authorization: 'Bearer tok' },
      body: '{"id":1,"name":"Fern"}',
      timeoutMs: 500,
    });
  });

  it('sends neither a credential nor a content type to a body-less public route', () => {
    expect(buildHttpRequest(contract.getHealth, settings, undefined)).toEqual({
      url: 'http://api.test/v1/healthz',
      method: 'GET',
      headers: { accept: 'application/json' },
      body: undefined,
      timeoutMs: 500,
    });
  });
});
