import { PassThrough } from 'node:stream';
import { contract } from '@plant-store/schema';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';
import { DOCS_PATHS } from '../docs/docs-assets.ts';
import { createLogger } from '../observability/logger.ts';

// What a request carries through the app (AppState, and @koa/router's `routerPath` on the
// context), as the one log line per answer shows it.

const logged: Record<string, unknown>[] = [];
let server: TestApp;
beforeAll(async () => {
  const destination = new PassThrough();
  destination.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) logged.push(JSON.parse(line));
  });
  server = await createTestApp({ logger: createLogger('info', { destination }) });
});
afterAll(() => server.dispose());

async function stateOf(path: string, init: RequestInit = {}) {
  const requestId = `state-${Math.random().toString(36).slice(2)}`;
  const headers = { ...(init.headers as Record<string, string>), 'x-request-id': requestId };
  const response = await server.fetch(path, { ...init, headers });
  await response.arrayBuffer();
  await new Promise((resolve) => setImmediate(resolve));
  const line = logged.find((entry) => entry.requestId === requestId);
  return { status: response.status, route: line?.route, consumer: line?.consumer };
}

it('names the route a request matched by its path, and the credential that made it', async () => {
  const created = await stateOf('/plants', {
    method: 'POST',
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    body: '{"id": 1, "name": "Fern"}',
  });
  expect(created).toEqual({ status: 200, route: '/plants', consumer: 'env#1' });
});

it('names the docs routes beside the contract the same way, with no consumer', async () => {
  for (const path of [DOCS_PATHS.page, DOCS_PATHS.script, contract.getOpenApiDocument.path]) {
    expect(await stateOf(path)).toEqual({ status: 200, route: path, consumer: null });
  }
});

it('names no route for a request none matched: a 404, a 405', async () => {
  expect(await stateOf('/nowhere')).toEqual({ status: 404, route: null, consumer: null });
  const wrongMethod = await stateOf(DOCS_PATHS.page, { method: 'DELETE' });
  expect(wrongMethod).toEqual({ status: 405, route: null, consumer: null });
});
