import { describe, expect, it } from 'vitest';
import { QUOTED_MAX_LENGTH, shortened } from './shortened.ts';

describe('shortened', () => {
  it.each([
    ['', 5, ''],
    ['abcde', 5, 'abcde'],
    ['abcdef', 5, 'abcd…'],
    ['😀😀😀😀😀', 5, '😀😀😀😀😀'],
    ['😀😀😀😀😀😀', 5, '😀😀😀😀…'],
    ['abc😀😀', 5, 'abc😀😀'],
  ])('%j at most %i code points → %j', (text, max, expected) => {
    expect(shortened(text, max)).toBe(expected);
  });

  it('never cuts a surrogate pair in two', () => {
    for (let prefix = 0; prefix < 4; prefix += 1) {
      const out = shortened(`${'a'.repeat(prefix)}${'😀'.repeat(50)}`, 7);
      expect(out.isWellFormed()).toBe(true);
      expect([...out]).toHaveLength(7);
    }
  });

  it(`quotes at most ${QUOTED_MAX_LENGTH} code points by default`, () => {
    expect([...shortened('k'.repeat(65_000))]).toHaveLength(QUOTED_MAX_LENGTH);
  });
});
