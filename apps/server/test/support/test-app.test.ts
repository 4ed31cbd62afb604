import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './test-app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.dispose());

const create = (body: string, token = app.token) =>
  app.fetch('/plants', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
  });

describe('createTestApp', () => {
  it('stores an acknowledged create in its SQLite file, read back apart from the app', async () => {
    const answer = await create('{"id": 9007199254740993, "name": "Fern", "tag": "indoor"}');
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ name: 'Fern', tag: 'indoor' });
    expect(app.rows()).toEqual([{ id: 9007199254740993n, name: 'Fern', tag: 'indoor' }]);
  });

  it('answers as the server does: the Error shape, its headers, nothing stored', async () => {
    const answer = await create('{"id": 2, "name": "Fern"}', 'not-the-token');
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(answer.headers.get('x-request-id')).toBeTruthy();
    expect(await answer.json()).toMatchObject({ error: expect.any(Number) });
    expect(app.rows().map((row) => row.id)).toEqual([9007199254740993n]);
  });

  it('gives fetch no body for HEAD and the bytes otherwise', async () => {
    const head = await app.fetch('/healthz', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const get = await app.inject('/healthz');
    expect(get.json()).toEqual({ status: 'ok' });
  });

  it('keeps a connection whose request was read in full and closes one it did not read', async () => {
    const kept = await create('{"id": 3, "name": "Ivy"}');
    expect(kept.headers.get('connection')).toBe('keep-alive');
    const unread = await app.fetch('/healthz', { method: 'GET', body: 'x' });
    expect(unread.headers.get('connection')).toBe('close');
  });

  it('reopens the same file in a second app', async () => {
    const again = await createTestApp({ databaseFile: app.databaseFile });
    try {
      expect(again.rows().map((row) => row.id)).toContain(3n);
    } finally {
      await again.dispose();
    }
  });
});
