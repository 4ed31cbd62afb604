import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { textLength } from './text.ts';

// textLength replaces zod's z.minLength(1) + z.maxLength(n) (a smaller browser bundle): the same
// strings pass, and a refused one gets the issue zod's own checks report.
const mine = z.string().check(textLength(3));
const zods = z
  .string()
  .check(z.minLength(1, 'must not be empty'), z.maxLength(3, 'must be at most 3 characters'));

describe('textLength', () => {
  it.each([
    ['', false],
    ['a', true],
    ['abc', true],
    ['abcd', false],
    ['🌿🌿🌿', true],
    ['🌿🌿🌿🌿', false],
    ['\uD83Cab', true],
  ])('%j: accepted %s, with the issue z.minLength/z.maxLength give', (text, accepted) => {
    const result = mine.safeParse(text);
    expect(result.success).toBe(accepted);
    expect(result.error?.issues).toEqual(zods.safeParse(text).error?.issues);
  });
});
