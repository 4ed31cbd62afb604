import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type ClosableTokenStore,
  createSqliteTokenStore,
} from '../../test/support/token-stores.ts';
import { StoreUnavailableError } from '../store/plant-store.ts';
import { createManagedToken } from './manage-tokens.ts';
import { MAX_ENTRIES, ManagedTokenVerifier, RECOGNISED_TTL_MS } from './managed-token-verifier.ts';
import { generateToken } from './token-format.ts';
import { digestToken } from './token-registry.ts';

let folder: string;
let store: ClosableTokenStore;

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'plant-store-verifier-'));
  store = createSqliteTokenStore({ filename: join(folder, 'plants.db') });
  vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2030-01-01T00:00:00.000Z') });
});
afterEach(async () => {
  vi.useRealTimers();
  await store.close();
  rmSync(folder, { recursive: true, force: true });
});

const create = (name: string, expires?: string) =>
  createManagedToken(store, { name, expires, now: new Date() });

/** A verifier on `store` that counts its lookups there. */
function countingVerifier() {
  const counted = { lookups: 0 };
  const lookUp = {
    findByDigest: (digest: string) => {
      counted.lookups++;
      return store.findByDigest(digest);
    },
  };
  return { verifier: new ManagedTokenVerifier(lookUp), counted };
}

describe('ManagedTokenVerifier', () => {
  it('accepts a stored token by its consumer name and caches it for the TTL', async () => {
    const { token } = await create('acme');
    const { verifier, counted } = countingVerifier();
    expect(await verifier.verify(token)).toEqual({ name: 'acme' });
    vi.advanceTimersByTime(3000);
    expect(await verifier.verify(token)).toEqual({ name: 'acme' });
    expect(counted.lookups).toBe(1);
    vi.advanceTimersByTime(1);
    expect(await verifier.verify(token)).toEqual({ name: 'acme' });
    expect(counted.lookups).toBe(2);
  });

  it('recognises a token it verified valid, until RECOGNISED_TTL_MS or its refusal', async () => {
    const { token } = await create('acme');
    const other = await create('other');
    const { verifier } = countingVerifier();
    expect(verifier.recognises(digestToken(token))).toBe(false);
    await verifier.verify(token);
    await verifier.verify(other.token);
    await verifier.verify(generateToken());
    expect(verifier.recognises(digestToken(token))).toBe(true);
    vi.advanceTimersByTime(RECOGNISED_TTL_MS);
    expect(verifier.recognises(digestToken(token))).toBe(true);
    vi.advanceTimersByTime(1);
    expect(verifier.recognises(digestToken(token))).toBe(false);
    // Revoked: refused at its next lookup, and no longer recognised.
    await verifier.verify(other.token);
    expect(verifier.recognises(digestToken(other.token))).toBe(true);
    await store.revoke({ name: 'other' }, new Date());
    vi.advanceTimersByTime(3001);
    expect(await verifier.verify(other.token)).toBeUndefined();
    expect(verifier.recognises(digestToken(other.token))).toBe(false);
  });

  it('refuses a revoked token once the cached entry lapses', async () => {
    const { token } = await create('acme');
    const { verifier } = countingVerifier();
    expect(await verifier.verify(token)).toEqual({ name: 'acme' });
    await store.revoke({ name: 'acme' }, new Date());
    vi.advanceTimersByTime(3001);
    expect(await verifier.verify(token)).toBeUndefined();
  });

  it('refuses an expired token at its expiry, even while cached', async () => {
    const { token } = await create('short', '1s');
    const { verifier, counted } = countingVerifier();
    expect(await verifier.verify(token)).toEqual({ name: 'short' });
    vi.advanceTimersByTime(999);
    expect(await verifier.verify(token)).toEqual({ name: 'short' });
    vi.advanceTimersByTime(1);
    expect(await verifier.verify(token)).toBeUndefined();
    expect(counted.lookups).toBe(2);
  });

  it('refuses a typo or a malformed token without a store lookup', async () => {
    const { token } = await create('acme');
    const { verifier, counted } = countingVerifier();
    const typo = `${token.slice(0, 20)}${token[20] === 'A' ? 'B' : 'A'}${token.slice(21)}`;
    for (const bad of [typo, token.slice(0, -1), `${token}x`, 'pst_', 'not-a-managed-token']) {
      expect(await verifier.verify(bad)).toBeUndefined();
    }
    expect(counted.lookups).toBe(0);
  });

  it('remembers an unknown token as refused for the negative TTL', async () => {
    const { verifier, counted } = countingVerifier();
    const unknown = generateToken();
    expect(await verifier.verify(unknown)).toBeUndefined();
    vi.advanceTimersByTime(2000);
    expect(await verifier.verify(unknown)).toBeUndefined();
    expect(counted.lookups).toBe(1);
    vi.advanceTimersByTime(1);
    expect(await verifier.verify(unknown)).toBeUndefined();
    expect(counted.lookups).toBe(2);
  });

  it('shares one lookup among concurrent requests with the same token', async () => {
    const { token } = await create('acme');
    const { verifier, counted } = countingVerifier();
    const results = await Promise.all(Array.from({ length: 20 }, () => verifier.verify(token)));
    expect(results).toEqual(Array.from({ length: 20 }, () => ({ name: 'acme' })));
    expect(counted.lookups).toBe(1);
  });

  it('keeps its memory bounded under a flood of random well-formed tokens', async () => {
    const { token } = await create('acme');
    const { verifier, counted } = countingVerifier();
    expect(await verifier.verify(token)).toEqual({ name: 'acme' });
    const flood = Array.from({ length: MAX_ENTRIES + 100 }, generateToken);
    for (const unknown of flood) await verifier.verify(unknown);
    expect(counted.lookups).toBe(flood.length + 1);
    // Only the latest MAX_ENTRIES refusals are remembered: the first is looked up again, the last not.
    await verifier.verify(flood.at(-1) ?? '');
    expect(counted.lookups).toBe(flood.length + 1);
    await verifier.verify(flood[0] ?? '');
    expect(counted.lookups).toBe(flood.length + 2);
    // The flood did not evict the valid token: it is still answered from memory.
    expect(await verifier.verify(token)).toEqual({ name: 'acme' });
    expect(counted.lookups).toBe(flood.length + 2);
  });

  it('passes a store failure on and caches nothing from it', async () => {
    const { token } = await create('acme');
    const { verifier, counted } = countingVerifier();
    await store.close();
    await expect(verifier.verify(token)).rejects.toThrow(StoreUnavailableError);
    await expect(verifier.verify(token)).rejects.toThrow(StoreUnavailableError);
    expect(counted.lookups).toBe(2);
  });
});
