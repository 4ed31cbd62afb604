import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../../test/support/test-app.ts';

// The per-credential limit where the route runs it, after the bearer check: the app driven in
// process, the clock faked so that no window ends during a test.

const FIRST = 'first-consumer-token-0123456789';
const SECOND = 'second-consumer-token-0123456789';
let app: TestApp;

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  app = await createTestApp({
    tokens: [FIRST, SECOND],
    rateLimit: { perSecond: 2, burst: 2, authFailuresPerMinute: 0 },
  });
});
afterEach(async () => {
  vi.useRealTimers();
  await app.dispose();
});

let nextId = 1;

async function create(token: string, body = JSON.stringify({ id: nextId++, name: 'Fern' })) {
  const response = await app.fetch('/plants', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
  });
  await response.arrayBuffer();
  return response;
}

const limitHeaders = (response: Response) =>
  ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].map((name) =>
    response.headers.get(name),
  );

describe('limitCredential', () => {
  it("puts the credential's X-RateLimit-* headers on every answer past the bearer check", async () => {
    const created = await create(FIRST);
    expect(created.status).toBe(200);
    expect(limitHeaders(created)).toEqual(['2', '0', '1']);
    const invalid = await create(FIRST, '{"id": 1}');
    expect(invalid.status).toBe(400);
    expect(limitHeaders(invalid)).toEqual(['2', '0', '1']);
  });

  it('answers 429 past the limit before the handler runs: nothing stored', async () => {
    expect((await create(FIRST)).status).toBe(200);
    expect((await create(FIRST)).status).toBe(200);
    const refused = await create(FIRST);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(limitHeaders(refused)).toEqual(['2', '0', '1']);
    expect(app.rows()).toHaveLength(2);
    vi.advanceTimersByTime(1000);
    expect((await create(FIRST)).status).toBe(200);
  });

  it('counts each consumer the bearer check named on its own', async () => {
    for (let i = 0; i < 2; i++) expect((await create(FIRST)).status).toBe(200);
    expect((await create(FIRST)).status).toBe(429);
    expect((await create(SECOND)).status).toBe(200);
  });

  it('never counts or answers for a request the bearer check refused', async () => {
    for (let i = 0; i < 5; i++) {
      const refused = await create('unknown-token-0123456789abcdef');
      expect(refused.status).toBe(401);
      expect(limitHeaders(refused)).toEqual([null, null, null]);
    }
    expect((await create(FIRST)).status).toBe(200);
  });
});
