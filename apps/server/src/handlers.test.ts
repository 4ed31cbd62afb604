import { contract, ERROR_CATALOG, ERROR_MESSAGES } from '@plant-store/schema';
import inject from 'light-my-request';
import { describe, expect, it } from 'vitest';
import { contractApp } from '../test/support/in-process.ts';
import { tempSqliteStores } from '../test/support/temp-sqlite-stores.ts';
import { contractHandlers, type Lifecycle } from './handlers.ts';

// The handlers of the shipped contract on a real SQLite store, through the real router, in
// process (the bearer check is the app's: app.ts; here every request is let through).

const temp = tempSqliteStores('plant-handlers-');

function appOver(lifecycle: Lifecycle = { draining: false, closing: false }) {
  const store = temp.open();
  const app = contractApp(contract, {
    ...contractHandlers(store, lifecycle),
    getOpenApiDocument: { serve: async () => {} },
  });
  return {
    store,
    send: (options: Parameters<typeof inject>[1]) => inject(app.callback(), options),
  };
}

const create = (name: string) => ({
  method: 'POST' as const,
  url: contract.createPlant.path,
  headers: { 'content-type': 'application/json' },
  payload: `{"id": 9223372036854775807, "name": "${name}"}`,
});

describe('contractHandlers', () => {
  it('createPlant stores the plant, answers it without its id, and replays an identical create', async () => {
    const { send } = appOver();
    for (const attempt of [1, 2]) {
      const answer = await send(create('Fern'));
      expect(answer.statusCode, `attempt ${attempt}`).toBe(200);
      expect(answer.json()).toEqual({ name: 'Fern' });
    }
  });

  it('createPlant answers 409 for the same id with another name, naming the exact id', async () => {
    const { send } = appOver();
    await send(create('Fern'));
    const answer = await send(create('Ivy'));
    expect(answer.statusCode).toBe(409);
    expect(answer.json()).toEqual({
      error: ERROR_CATALOG.conflict.code,
      message: ERROR_MESSAGES.conflict(2n ** 63n - 1n),
    });
  });

  it('getHealth, getIndex and getReadiness answer their bodies', async () => {
    const { send } = appOver();
    expect((await send({ method: 'GET', url: contract.getHealth.path })).json()).toEqual({
      status: 'ok',
    });
    expect((await send({ method: 'GET', url: contract.getIndex.path })).json()).toEqual({
      docs: '/docs',
      openapi: '/openapi.json',
    });
    expect((await send({ method: 'GET', url: contract.getReadiness.path })).json()).toEqual({
      status: 'ok',
    });
  });

  it('getReadiness answers 503 with Retry-After once the shutdown has begun', async () => {
    const lifecycle = { draining: false, closing: false };
    const { send } = appOver(lifecycle);
    lifecycle.draining = true;
    const answer = await send({ method: 'GET', url: contract.getReadiness.path });
    expect(answer.statusCode).toBe(503);
    expect(answer.headers['retry-after']).toMatch(/^\d+$/);
    expect(answer.json()).toEqual({
      error: ERROR_CATALOG.storeUnavailable.code,
      message: 'Not ready: shutting down',
    });
  });

  it('getReadiness answers 503 naming the cause when the store cannot commit', async () => {
    const lifecycle = { draining: false, closing: false };
    const store = temp.open();
    const handlers = contractHandlers(
      {
        ...store,
        create: (plant) => store.create(plant),
        ping: () => store.ping(),
        close: () => store.close(),
        readiness: () => ({ ready: false, cause: { code: 'SQLITE_FULL', message: 'full' } }),
      },
      lifecycle,
    );
    await expect(
      handlers.getReadiness({ params: undefined, query: undefined, body: undefined }),
    ).rejects.toMatchObject({
      kind: 'storeUnavailable',
      message: 'Not ready: the store cannot commit (SQLITE_FULL)',
    });
  });
});
