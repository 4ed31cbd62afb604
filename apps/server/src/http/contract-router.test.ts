import { ERROR_CATALOG } from '@plant-store/schema';
import inject from 'light-my-request';
import { describe, expect, it } from 'vitest';
import { fixtureContract, fixtureHandlers } from '../../test/support/fixture-contract.ts';
import { contractApp } from '../../test/support/in-process.ts';
import { OpenApiResponseValidator } from '../../test/support/openapi-validator.ts';
import { ApiError } from '../api-error.ts';
import type { AppMiddleware } from './app-state.ts';

// The router on a fixture contract (test/support/fixture-contract.ts), in process: what it
// derives from an operation's entry, with no glue of its own per operation.

/** The bearer check as the app runs it: middleware in the route's list. */
const requireToken: AppMiddleware = async (ctx, next) => {
  if (ctx.get('Authorization') !== 'Bearer fixture-token') {
    throw new ApiError('unauthorized', 'A bearer credential is required');
  }
  ctx.state.consumer = 'fixture';
  await next();
};

const app = contractApp(fixtureContract, fixtureHandlers(), [requireToken]);
const send = (options: Parameters<typeof inject>[1]) => inject(app.callback(), options);
const json = { 'content-type': 'application/json' };
const errorOf = (name: keyof typeof ERROR_CATALOG, message: string) => ({
  error: ERROR_CATALOG[name].code,
  message,
});

describe('contractRouter on a fixture contract', () => {
  it('hands the validated path and query parameters to the handler and sends its result', async () => {
    const plain = await send({ method: 'GET', url: '/things/1' });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(plain.json()).toEqual({ name: 'Fern' });
    const loud = await send({ method: 'GET', url: '/things/0001?shout=yes&other=ignored' });
    expect(loud.json()).toEqual({ name: 'FERN' });
  });

  it('answers what the handler throws in the Error shape: a 404 for an unknown thing', async () => {
    const answer = await send({ method: 'GET', url: '/things/7' });
    expect(answer.statusCode).toBe(404);
    expect(answer.json()).toEqual(errorOf('notFound', 'No thing with id 7'));
  });

  it.each([
    ['/things/abc', 'path parameter id: must be a whole number of at most 9 digits'],
    ['/things/1%2F2', 'path parameter id: must be a whole number of at most 9 digits'],
    ['/things/1?shout=loud', 'query parameter shout: must be yes or no'],
    ['/things/1?shout=yes&shout=no', 'query parameter shout: must be yes or no'],
  ])('refuses GET %s with a 400 naming the parameter', async (url, message) => {
    const answer = await send({ method: 'GET', url });
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toEqual(errorOf('validationFailed', message));
  });

  it('runs the route list in order: credential, then parameters, then body', async () => {
    const anonymous = await send({ method: 'PUT', url: '/things/x', payload: '{' });
    expect(anonymous.statusCode).toBe(401);
    const auth = { ...json, authorization: 'Bearer fixture-token' };
    const badId = await send({ method: 'PUT', url: '/things/x', headers: auth, payload: '{' });
    expect(badId.json()).toEqual(
      errorOf('validationFailed', 'path parameter id: must be a whole number of at most 9 digits'),
    );
    const badBody = await send({
      method: 'PUT',
      url: '/things/2',
      headers: auth,
      payload: '{"id": 2, "name": ""}',
    });
    expect(badBody.json()).toEqual(errorOf('validationFailed', 'name: must not be empty'));
    const stored = await send({
      method: 'PUT',
      url: '/things/2',
      headers: auth,
      payload: '{"id": 2, "name": "Ivy"}',
    });
    expect(stored.json()).toEqual({ name: 'Ivy' });
    expect((await send({ method: 'GET', url: '/things/2' })).json()).toEqual({ name: 'Ivy' });
  });

  it('answers 405 with Allow for a method the path lacks, 404 for a path no operation has', async () => {
    const wrong = await send({ method: 'DELETE', url: '/things/1' });
    expect(wrong.statusCode).toBe(405);
    expect(wrong.headers.allow).toBe('HEAD, GET, PUT');
    expect(wrong.json()).toMatchObject({ error: ERROR_CATALOG.methodNotAllowed.code });
    const none = await send({ method: 'GET', url: '/things' });
    expect(none.statusCode).toBe(404);
    expect(none.json()).toEqual(errorOf('notFound', 'No operation at GET /things'));
  });

  it('answers as the operation documents it (templated path, each status)', async () => {
    const { buildOpenApiDocument } = await import('@plant-store/schema/openapi');
    const validator = new OpenApiResponseValidator(buildOpenApiDocument(fixtureContract));
    for (const url of ['/things/1', '/things/7', '/things/abc']) {
      const answer = await send({ method: 'GET', url });
      validator.assertResponse('get', url, answer.statusCode, answer.json());
    }
  });

  it('lets an operation be answered by middleware of its own instead of a handler', async () => {
    const served = contractApp(
      fixtureContract,
      {
        ...fixtureHandlers(),
        getThing: {
          serve: async (ctx) => {
            ctx.type = 'application/json';
            ctx.body = `{"name":"served ${ctx.params.id}"}`;
          },
        },
      },
      [requireToken],
    );
    const answer = await inject(served.callback(), { method: 'GET', url: '/things/abc' });
    expect(answer.json()).toEqual({ name: 'served abc' });
  });
});
