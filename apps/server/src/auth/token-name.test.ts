import { describe, expect, it } from 'vitest';
import { tokenNameProblem } from './token-name.ts';

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
