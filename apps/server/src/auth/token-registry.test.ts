import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type ClosableTokenStore,
  createSqliteTokenStore,
} from '../../test/support/token-stores.ts';
import { StoreUnavailableError } from '../store/plant-store.ts';
import { createManagedToken } from './manage-tokens.ts';
import { generateToken } from './token-format.ts';
import { digestToken, MAX_ENTRIES, RECOGNISED_TTL_MS, TokenRegistry } from './token-registry.ts';

describe('TokenRegistry', () => {
  const registry = new TokenRegistry(['first-token-0123456789', 'second-token-0123456789']);

  it('names each configured token by its position, never by its value', async () => {
    expect(await registry.authenticate('first-token-0123456789')).toEqual({ name: 'env#1' });
    expect(await registry.authenticate('second-token-0123456789')).toEqual({ name: 'env#2' });
  });

  it('refuses unknown tokens and near misses', async () => {
    expect(await registry.authenticate('first-token-012345678')).toBeUndefined();
    expect(await registry.authenticate('FIRST-TOKEN-0123456789')).toBeUndefined();
    expect(await registry.authenticate('')).toBeUndefined();
    expect(registry.recognises('first-token-0123456789')).toBe(true);
    expect(registry.recognises('first-token-012345678')).toBe(false);
  });

  it('keeps only SHA-256 digests', () => {
    expect(digestToken('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    const held = inspect(registry, { depth: 5 });
    expect(held).toContain(digestToken('first-token-0123456789'));
    expect(held).not.toContain('first-token');
  });
});

describe('TokenRegistry.authenticate', () => {
  it('accepts configured tokens, then asks the managed tokens', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'plant-store-registry-'));
    const store = createSqliteTokenStore({ filename: join(folder, 'plants.db') });
    try {
      const { token } = await createManagedToken(store, { name: 'acme' });
      const registry = new TokenRegistry(['first-token-0123456789'], store);
      expect(await registry.authenticate('first-token-0123456789')).toEqual({ name: 'env#1' });
      // A managed token is recognised once this process has verified it.
      expect(registry.recognises(token)).toBe(false);
      expect(await registry.authenticate(token)).toEqual({ name: 'acme' });
      expect(registry.recognises(token)).toBe(true);
      expect(await registry.authenticate(generateToken())).toBeUndefined();
      expect(await registry.authenticate('unknown-token-0123456789')).toBeUndefined();
      // Without managed tokens, only the configured ones count.
      expect(await new TokenRegistry([]).authenticate(token)).toBeUndefined();
    } finally {
      await store.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

let folder: string;
let store: ClosableTokenStore;

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'plant-store-registry-'));
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

/** A registry of the managed tokens in `store` that counts its lookups there. */
function countingRegistry() {
  const counted = { lookups: 0 };
  const lookUp = {
    findByDigest: (digest: string) => {
      counted.lookups++;
      return store.findByDigest(digest);
    },
  };
  return { registry: new TokenRegistry([], lookUp), counted };
}

describe('TokenRegistry with managed tokens', () => {
  it('accepts a stored token by its consumer name and caches it for the TTL', async () => {
    const { token } = await create('acme');
    const { registry, counted } = countingRegistry();
    expect(await registry.authenticate(token)).toEqual({ name: 'acme' });
    vi.advanceTimersByTime(3000);
    expect(await registry.authenticate(token)).toEqual({ name: 'acme' });
    expect(counted.lookups).toBe(1);
    vi.advanceTimersByTime(1);
    expect(await registry.authenticate(token)).toEqual({ name: 'acme' });
    expect(counted.lookups).toBe(2);
  });

  it('recognises a token it verified valid, until RECOGNISED_TTL_MS or its refusal', async () => {
    const { token } = await create('acme');
    const other = await create('other');
    const { registry } = countingRegistry();
    expect(registry.recognises(token)).toBe(false);
    await registry.authenticate(token);
    await registry.authenticate(other.token);
    await registry.authenticate(generateToken());
    expect(registry.recognises(token)).toBe(true);
    vi.advanceTimersByTime(RECOGNISED_TTL_MS);
    expect(registry.recognises(token)).toBe(true);
    vi.advanceTimersByTime(1);
    expect(registry.recognises(token)).toBe(false);
    // Revoked: refused at its next lookup, and no longer recognised.
    await registry.authenticate(other.token);
    expect(registry.recognises(other.token)).toBe(true);
    await store.revoke({ name: 'other' }, new Date());
    vi.advanceTimersByTime(3001);
    expect(await registry.authenticate(other.token)).toBeUndefined();
    expect(registry.recognises(other.token)).toBe(false);
  });

  it('refuses a revoked token once the cached entry lapses', async () => {
    const { token } = await create('acme');
    const { registry } = countingRegistry();
    expect(await registry.authenticate(token)).toEqual({ name: 'acme' });
    await store.revoke({ name: 'acme' }, new Date());
    vi.advanceTimersByTime(3001);
    expect(await registry.authenticate(token)).toBeUndefined();
  });

  it('refuses an expired token at its expiry, even while cached', async () => {
    const { token } = await create('short', '1s');
    const { registry, counted } = countingRegistry();
    expect(await registry.authenticate(token)).toEqual({ name: 'short' });
    vi.advanceTimersByTime(999);
    expect(await registry.authenticate(token)).toEqual({ name: 'short' });
    vi.advanceTimersByTime(1);
    expect(await registry.authenticate(token)).toBeUndefined();
    expect(counted.lookups).toBe(2);
  });

  it('refuses a typo or a malformed token without a store lookup', async () => {
    const { token } = await create('acme');
    const { registry, counted } = countingRegistry();
    const typo = `${token.slice(0, 20)}${token[20] === 'A' ? 'B' : 'A'}${token.slice(21)}`;
    for (const bad of [typo, token.slice(0, -1), `${token}x`, 'pst_', 'not-a-managed-token']) {
      expect(await registry.authenticate(bad)).toBeUndefined();
    }
    expect(counted.lookups).toBe(0);
  });

  it('remembers an unknown token as refused for the negative TTL', async () => {
    const { registry, counted } = countingRegistry();
    const unknown = generateToken();
    expect(await registry.authenticate(unknown)).toBeUndefined();
    vi.advanceTimersByTime(2000);
    expect(await registry.authenticate(unknown)).toBeUndefined();
    expect(counted.lookups).toBe(1);
    vi.advanceTimersByTime(1);
    expect(await registry.authenticate(unknown)).toBeUndefined();
    expect(counted.lookups).toBe(2);
  });

  it('shares one lookup among concurrent requests with the same token', async () => {
    const { token } = await create('acme');
    const { registry, counted } = countingRegistry();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => registry.authenticate(token)),
    );
    expect(results).toEqual(Array.from({ length: 20 }, () => ({ name: 'acme' })));
    expect(counted.lookups).toBe(1);
  });

  it('keeps its memory bounded under a flood of random well-formed tokens', async () => {
    const { token } = await create('acme');
    const { registry, counted } = countingRegistry();
    expect(await registry.authenticate(token)).toEqual({ name: 'acme' });
    const flood = Array.from({ length: MAX_ENTRIES + 100 }, generateToken);
    for (const unknown of flood) await registry.authenticate(unknown);
    expect(counted.lookups).toBe(flood.length + 1);
    // Only the latest MAX_ENTRIES refusals are remembered: the first is looked up again, the last not.
    await registry.authenticate(flood.at(-1) ?? '');
    expect(counted.lookups).toBe(flood.length + 1);
    await registry.authenticate(flood[0] ?? '');
    expect(counted.lookups).toBe(flood.length + 2);
    // The flood did not evict the valid token: it is still answered from memory.
    expect(await registry.authenticate(token)).toEqual({ name: 'acme' });
    expect(counted.lookups).toBe(flood.length + 2);
  });

  it('passes a store failure on and caches nothing from it', async () => {
    const { token } = await create('acme');
    const { registry, counted } = countingRegistry();
    await store.close();
    await expect(registry.authenticate(token)).rejects.toThrow(StoreUnavailableError);
    await expect(registry.authenticate(token)).rejects.toThrow(StoreUnavailableError);
    expect(counted.lookups).toBe(2);
  });
});
