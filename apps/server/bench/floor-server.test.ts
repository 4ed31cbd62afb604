import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenRegistry } from '../src/auth/token-registry.ts';
import { createSqliteStore, type SqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import { floorHandler } from './floor-server.ts';
import { runLoad } from './load.ts';
import { countSqliteRows } from './seed.ts';

// The floor does the real work of a create (checks, lossless parse, validation, durable store)
// over real HTTP, and the load generator sends unique valid creates that it accepts.

const folder = mkdtempSync(join(tmpdir(), 'plant-store-floor-'));
const token = 'floor-test-token-0123456789abcdef';
let store: SqliteStore;
let server: Server;
let url: string;

beforeAll(async () => {
  store = createSqliteStore({ filename: join(folder, 'plants.db') });
  server = createServer(
    floorHandler({ store, tokens: TokenRegistry.fromTokens([token]), bodyLimitBytes: 1024 }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await store.close();
  rmSync(folder, { recursive: true, force: true });
});

const post = (body: string, bearer = token, type = 'application/json') =>
  fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': type },
    body,
  });

describe('the floor handler', () => {
  it('creates a plant durably, exactly, and answers the Plant', async () => {
    const response = await post('{"id": 9007199254740993, "name": "Fern", "tag": "shade"}');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ name: 'Fern', tag: 'shade' });
    expect(await store.get(9007199254740993n)).toEqual({
      id: 9007199254740993n,
      name: 'Fern',
      tag: 'shade',
    });
  });

  it('does every check the real server does on the hot path', async () => {
    expect((await post('{"id": 1, "name": "x"}', 'wrong-token-0123456789')).status).toBe(401);
    expect((await post('{"id": 1, "name": "x"}', token, 'text/plain')).status).toBe(415);
    expect((await post('{"id": 1, "name": ')).status).toBe(400);
    expect((await post('{"id": 1.5, "name": "x"}')).status).toBe(400);
    expect((await post(`{"id": 1, "name": "${'x'.repeat(2000)}"}`)).status).toBe(413);
    expect((await post('{"id": 9007199254740993, "name": "Other"}')).status).toBe(409);
  });
});

describe('runLoad', () => {
  it('sends unique valid creates: every one is answered 200 or still in flight, and stored', async () => {
    const before = countSqliteRows(store.filename);
    const result = await runLoad({
      url,
      token,
      connections: 4,
      durationSeconds: 1,
      counter: { next: 0 },
    });
    expect(result.ok).toBeGreaterThan(0);
    expect(result.non2xx).toBe(0);
    expect(result.sent - result.ok).toBeLessThanOrEqual(4);
    // The ones still in flight when the run ended commit shortly after.
    await expect.poll(() => countSqliteRows(store.filename) - before).toBe(result.sent);
    expect(result.latencyP99Ms).toBeGreaterThanOrEqual(result.latencyP50Ms);
  });
});
