import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { digestToken, TokenRegistry } from './token-registry.ts';

describe('TokenRegistry', () => {
  const registry = TokenRegistry.fromTokens(['first-token-0123456789', 'second-token-0123456789']);

  it('names each configured token by its position, never by its value', () => {
    expect(registry.verify('first-token-0123456789')).toEqual({ name: 'env#1' });
    expect(registry.verify('second-token-0123456789')).toEqual({ name: 'env#2' });
  });

  it('refuses unknown tokens and near misses', () => {
    expect(registry.verify('first-token-012345678')).toBeUndefined();
    expect(registry.verify('FIRST-TOKEN-0123456789')).toBeUndefined();
    expect(registry.verify('')).toBeUndefined();
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
