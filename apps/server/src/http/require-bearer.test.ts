import { mkdtempSync, rmSync } from 'node:fs';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Koa from 'koa';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type ClosableTokenStore,
  createSqliteTokenStore,
} from '../../test/support/token-stores.ts';
import { ApiError } from '../api-error.ts';
import { createManagedToken } from '../auth/manage-tokens.ts';
import { generateToken } from '../auth/token-format.ts';
import { digestToken, TokenRegistry } from '../auth/token-registry.ts';
import { AUTH_FAILURE_WINDOW_SECONDS, RateLimits } from '../limits/rate-limits.ts';
import type { AppMiddleware, AppState } from './app-state.ts';
import { limitCredential } from './limit-credential.ts';
import { requireBearer } from './require-bearer.ts';

// The bearer check with the refused-credential limit, as the route's middleware list runs them
// (requireBearer, then limitCredential), on Koa contexts made in process, a real SQLite token
// store whose lookups are counted, and the clock faked: what a refusal costs and spends.

const CONFIGURED = 'configured-token-0123456789';
const NEIGHBOUR = '198.51.100.7';

let folder: string;
let store: ClosableTokenStore;
let limits: RateLimits | undefined;
const app = new Koa<AppState>();

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2030-01-01T00:00:00.000Z') });
  folder = mkdtempSync(join(tmpdir(), 'plant-store-bearer-'));
  store = createSqliteTokenStore({ filename: join(folder, 'plants.db') });
});
afterEach(async () => {
  vi.useRealTimers();
  limits?.close();
  await store.close();
  rmSync(folder, { recursive: true, force: true });
});

/** The route's middleware with a refused-credential budget, and the store lookups per digest. */
function route(authFailuresPerMinute: number) {
  const lookups = new Map<string, number>();
  const tokens = new TokenRegistry([CONFIGURED], {
    findByDigest: (digest: string) => {
      lookups.set(digest, (lookups.get(digest) ?? 0) + 1);
      return store.findByDigest(digest);
    },
  });
  limits = RateLimits.create({ perSecond: 1000, burst: 1000, authFailuresPerMinute });
  const list: AppMiddleware[] = [requireBearer(tokens, limits), limitCredential(limits)];
  const lookupsBut = (...tokens: string[]) => {
    const spared = new Set(tokens.map(digestToken));
    return [...lookups].reduce((sum, [digest, n]) => sum + (spared.has(digest) ? 0 : n), 0);
  };
  /** The status a request gets (200 when every middleware passed it on). */
  const send = async (authorization: string | undefined, ip: string): Promise<number> => {
    const req = new IncomingMessage(new Socket());
    if (authorization !== undefined) req.headers.authorization = authorization;
    const ctx = app.createContext(req, new ServerResponse(req));
    ctx.request.ip = ip;
    const run = async (i: number): Promise<void> => list[i]?.(ctx, () => run(i + 1));
    try {
      await run(0);
      return 200;
    } catch (error) {
      if (error instanceof ApiError) return error.status;
      throw error;
    }
  };
  return { send, lookups, lookupsBut };
}

describe('requireBearer with the refused-credential limit', () => {
  it('spends nothing and looks nothing up for a missing, non-bearer or empty credential', async () => {
    const { send, lookups } = route(3);
    for (const header of [undefined, '', 'Basic YWRtaW46YWRtaW4=', 'Bearer', 'Bearer tok en!']) {
      for (let i = 0; i < 10; i++) expect(await send(header, NEIGHBOUR), String(header)).toBe(401);
    }
    expect(lookups.size).toBe(0);
    // The whole budget is still there.
    for (let i = 0; i < 3; i++)
      expect(await send(`Bearer ${generateToken()}`, NEIGHBOUR)).toBe(401);
    expect(await send(`Bearer ${generateToken()}`, NEIGHBOUR)).toBe(429);
  });

  it('answers a spent guesser 429 without a store lookup', async () => {
    const { send, lookups } = route(30);
    const statuses: number[] = [];
    for (let i = 0; i < 1000; i++)
      statuses.push(await send(`Bearer ${generateToken()}`, NEIGHBOUR));
    expect(statuses).toEqual([...Array(30).fill(401), ...Array(970).fill(429)]);
    // The budget's 30 lookups, none after.
    expect([...lookups.values()].reduce((sum, n) => sum + n, 0)).toBe(30);
    // Another address has its own budget.
    expect(await send(`Bearer ${generateToken()}`, '198.51.100.8')).toBe(401);
  });

  it('serves valid clients beside a neighbour sending 10 bad tokens a second', async () => {
    const { token } = await createManagedToken(store, { name: 'office', now: new Date() });
    const { send, lookupsBut } = route(30);
    const served = { managed: 0, configured: 0, sent: 0 };
    const neighbour: number[] = [];
    // Three windows of 100 ms steps: in each, a bad token from the neighbour and a create with
    // each valid token, all from the same address (a NAT).
    for (let step = 0; step < 3 * AUTH_FAILURE_WINDOW_SECONDS * 10; step++) {
      served.sent += 1;
      if ((await send(`Bearer ${token}`, NEIGHBOUR)) === 200) served.managed += 1;
      if ((await send(`Bearer ${CONFIGURED}`, NEIGHBOUR)) === 200) served.configured += 1;
      neighbour.push(await send(`Bearer ${generateToken()}`, NEIGHBOUR));
      vi.advanceTimersByTime(100);
    }
    expect(served.managed / served.sent).toBeGreaterThanOrEqual(0.99);
    expect(served.configured).toBe(served.sent);
    // The neighbour is refused: 30 401s a window at most, and a lookup only for those.
    expect(neighbour.filter((status) => status === 401).length).toBeLessThanOrEqual(3 * 30);
    expect(neighbour.filter((status) => status !== 401 && status !== 429)).toEqual([]);
    expect(lookupsBut(token)).toBe(neighbour.filter((status) => status === 401).length);
  });

  it('serves a valid token not seen before from a spent address once the window ends', async () => {
    const { send, lookups } = route(2);
    for (let i = 0; i < 3; i++) await send(`Bearer ${generateToken()}`, NEIGHBOUR);
    const { token } = await createManagedToken(store, { name: 'newcomer', now: new Date() });
    expect(await send(`Bearer ${token}`, NEIGHBOUR)).toBe(429);
    expect(lookups.get(digestToken(token))).toBeUndefined();
    vi.advanceTimersByTime(AUTH_FAILURE_WINDOW_SECONDS * 1000);
    expect(await send(`Bearer ${token}`, NEIGHBOUR)).toBe(200);
    // Recognised from now on, whatever the neighbour spends.
    for (let i = 0; i < 3; i++) await send(`Bearer ${generateToken()}`, NEIGHBOUR);
    expect(await send(`Bearer ${generateToken()}`, NEIGHBOUR)).toBe(429);
    expect(await send(`Bearer ${token}`, NEIGHBOUR)).toBe(200);
  });

  it('still refuses a recognised token once it is revoked, and counts that', async () => {
    const { token } = await createManagedToken(store, { name: 'leaver', now: new Date() });
    const { send } = route(1);
    expect(await send(`Bearer ${token}`, NEIGHBOUR)).toBe(200);
    await store.revoke({ name: 'leaver' }, new Date());
    vi.advanceTimersByTime(3001);
    expect(await send(`Bearer ${token}`, NEIGHBOUR)).toBe(401);
    expect(await send(`Bearer ${token}`, NEIGHBOUR)).toBe(429);
  });
});
