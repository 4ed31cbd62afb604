import { ERROR_CATALOG } from '@plant-store/schema';
import { buildOpenApiDocument } from '@plant-store/schema/openapi';
// The in-process parts only, not the whole test support (which starts servers and browsers).
import { fixtureContract, fixtureHandlers } from '@plant-store/server/testing/fixture-contract';
import { contractApp, inProcessFetch } from '@plant-store/server/testing/in-process';
import { OpenApiResponseValidator } from '@plant-store/server/testing/openapi-validator';
import { describe, expect, it } from 'vitest';
import { callOperation } from './client.ts';
import { PlantStoreError } from './errors.ts';
import { resolveClientConfig } from './options.ts';

// One contract the API does not ship (a path parameter, a query parameter, a 404), end to end
// through the real parts and nothing written for it: the server's router (a Koa app in this
// process, @plant-store/server/testing), this client's generic call, and the document builder.

const TOKEN = 'fixture-token-0123456789';
const app = contractApp(fixtureContract, fixtureHandlers(), [
  async (ctx, next) => {
    if (ctx.get('Authorization') !== `Bearer ${TOKEN}`) ctx.throw(401);
    await next();
  },
]);
const config = resolveClientConfig({
  baseUrl: 'http://in-process.test/',
  token: TOKEN,
  fetch: inProcessFetch(app),
  retries: 0,
});
const { getThing, putThing } = fixtureContract;
const document = buildOpenApiDocument(fixtureContract);

describe('a fixture contract, through the real router, client and document', () => {
  it('reads a thing by its path parameter, the query parameter applied', async () => {
    await expect(
      callOperation(config, getThing, { params: { id: 1 }, query: {} }),
    ).resolves.toEqual({ name: 'Fern' });
    await expect(
      callOperation(config, getThing, { params: { id: 1 }, query: { shout: 'yes' } }),
    ).resolves.toEqual({ name: 'FERN' });
  });

  it('stores a thing with a bearer PUT, then reads it back', async () => {
    await expect(
      callOperation(config, putThing, { params: { id: 42 }, body: { id: 42n, name: 'Ivy' } }),
    ).resolves.toEqual({ name: 'Ivy' });
    await expect(
      callOperation(config, getThing, { params: { id: 42 }, query: {} }),
    ).resolves.toEqual({ name: 'Ivy' });
  });

  it("rejects the handler's 404 as a PlantStoreError with the Error body's code and message", async () => {
    const failure = await callOperation(config, getThing, { params: { id: 7 }, query: {} }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(PlantStoreError);
    expect(failure).toMatchObject({
      status: 404,
      code: ERROR_CATALOG.notFound.code,
      message: 'No thing with id 7',
      operationId: 'getThing',
    });
  });

  it("rejects a query value the server's schema refuses with its 400, naming the parameter", async () => {
    const failure = await callOperation(config, getThing, {
      params: { id: 1 },
      query: { shout: 'loud' as 'yes' },
    }).catch((error: unknown) => error);
    expect(failure).toMatchObject({
      status: 400,
      code: ERROR_CATALOG.validationFailed.code,
      message: 'query parameter shout: must be yes or no',
    });
  });

  it('documents the operation: its parameters, body and every status it answers', () => {
    const item = document.paths?.['/things/{id}'];
    expect(item?.get?.parameters).toEqual([
      {
        name: 'id',
        in: 'path',
        required: true,
        schema: { type: 'string', pattern: '^[0-9]{1,9}$' },
      },
      {
        name: 'shout',
        in: 'query',
        required: false,
        schema: { type: 'string', enum: ['yes', 'no'] },
      },
    ]);
    expect(Object.keys(item?.get?.responses ?? {})).toEqual(['200', '400', '404', '405']);
    expect(item?.get?.responses?.['404']).toEqual({ $ref: '#/components/responses/NotFound' });
    expect(item?.put?.security).toEqual([{ bearerAuth: [] }]);
    expect(item?.put?.requestBody).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPlant' } } },
    });
    expect(Object.keys(item?.put?.responses ?? {})).toEqual(['200', '400', '401', '404', '405']);
  });

  it('answers every call as the generated document says, found by its path template', async () => {
    const validator = new OpenApiResponseValidator(document);
    for (const [url, status] of [
      ['/things/1', 200],
      ['/things/7', 404],
      ['/things/x', 400],
    ] as const) {
      const answer = await inProcessFetch(app)(`http://in-process.test${url}`);
      expect(answer.status, url).toBe(status);
      validator.assertResponse('get', url, status, await answer.json(), answer.headers);
    }
  });
});
