import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createSqliteTokenStore } from '../../test/support/token-stores.ts';
import { createManagedToken } from './manage-tokens.ts';
import { ManagedTokenVerifier } from './managed-token-verifier.ts';
import { generateToken } from './token-format.ts';
import { digestToken, TokenRegistry } from './token-registry.ts';

describe('TokenRegistry', () => {
  const registry = TokenRegistry.fromTokens(['first-token-0123456789', 'second-token-0123456789']);

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
      const registry = TokenRegistry.fromTokens(
        ['first-token-0123456789'],
        new ManagedTokenVerifier(store),
      );
      expect(await registry.authenticate('first-token-0123456789')).toEqual({ name: 'env#1' });
      // A managed token is recognised once this process has verified it.
      expect(registry.recognises(token)).toBe(false);
      expect(await registry.authenticate(token)).toEqual({ name: 'acme' });
      expect(registry.recognises(token)).toBe(true);
      expect(await registry.authenticate(generateToken())).toBeUndefined();
      expect(await registry.authenticate('unknown-token-0123456789')).toBeUndefined();
      // Without managed tokens, only the configured ones count.
      expect(await TokenRegistry.fromTokens([]).authenticate(token)).toBeUndefined();
    } finally {
      await store.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
