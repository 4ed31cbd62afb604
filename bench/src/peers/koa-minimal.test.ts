import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMinimalKoaPeer } from './koa-minimal.ts';
import { storedPlants } from './sqlite-commit.ts';

// The price-of-features floor does the same durable write as the server: the row is stored
// before the 200, and a request without the token stores nothing.

const token = 'minimal-token-0123456789abcdef';
const folder = mkdtempSync(join(tmpdir(), 'plant-store-koa-minimal-'));
const databaseFile = join(folder, 'plants.db');
const peer = createMinimalKoaPeer({ databaseFile, tokens: [token], bodyLimitBytes: 65_536 });
let url = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => peer.server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(peer.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => peer.server.close(resolve));
  peer.close();
  rmSync(folder, { recursive: true, force: true });
});

const post = (body: unknown, bearer = token) =>
  fetch(`${url}/plants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('koa-minimal', () => {
  it('stores a plant durably before answering 200, and refuses a wrong token or a taken id', async () => {
    const created = await post({ id: 7, name: 'Fern', tag: 'green' });
    expect(created.status).toBe(200);
    expect(await created.json()).toEqual({ name: 'Fern', tag: 'green' });
    expect((await post({ id: 8, name: 'Moss' }, 'wrong-token-0123456789')).status).toBe(401);
    expect((await post({ id: 7, name: 'Fern' })).status).toBe(409);
    expect(storedPlants(databaseFile).map((row) => row.name)).toEqual(['Fern']);
  });
});
