import { describe, expect, it } from 'vitest';
import { MAX_LIFETIME_MS, TokenLifetime, tokenNameProblem } from './manage-tokens.ts';

describe('TokenLifetime (--expires)', () => {
  it('reads each unit and sums', () => {
    expect(TokenLifetime.parse('45s')).toBe(45_000);
    expect(TokenLifetime.parse('90m')).toBe(5_400_000);
    expect(TokenLifetime.parse('12h')).toBe(43_200_000);
    expect(TokenLifetime.parse('30d')).toBe(2_592_000_000);
    expect(TokenLifetime.parse('2w')).toBe(1_209_600_000);
    expect(TokenLifetime.parse('1d12h')).toBe(129_600_000);
    expect(TokenLifetime.parse('3650d')).toBe(MAX_LIFETIME_MS);
  });

  it('refuses other forms, zero and more than ten years', () => {
    for (const bad of ['', '30', 'd', '1.5h', '-1d', '1 d', '1D', '1y', 'never', '1d 2h']) {
      expect(() => TokenLifetime.parse(bad), bad).toThrow(/use a number and a unit/);
    }
    expect(() => TokenLifetime.parse('0s')).toThrow(/must be > 0/);
    expect(() => TokenLifetime.parse('3651d')).toThrow(/at most 3650d/);
    expect(() => TokenLifetime.parse('99999999999999999999d')).toThrow(/at most 3650d/);
  });
});

describe('tokenNameProblem', () => {
  it('accepts letters first, then letters, digits, dot, underscore and dash', () => {
    for (const good of ['a', 'acme', 'Acme_Mobile-2.0', `a${'b'.repeat(63)}`]) {
      expect(tokenNameProblem(good), good).toBeUndefined();
    }
  });

  it('refuses numbers, env names, spaces, control characters and long names', () => {
    for (const bad of [
      '',
      '42',
      '1acme',
      'env#1',
      'ac me',
      'acme\n',
      '-acme',
      `a${'b'.repeat(64)}`,
    ]) {
      expect(tokenNameProblem(bad), bad).toMatch(/starts with a letter/);
    }
  });
});
