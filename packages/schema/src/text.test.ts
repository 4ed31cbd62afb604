import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { NO_CONTROL_CHARACTERS_PATTERN, textRules } from './text.ts';

// textRules replaces zod's z.minLength(1), z.maxLength(n) and two z.refine (a smaller browser
// bundle): the same strings pass, and a refused one gets the issues zod's own checks report.
const mine = z.string().check(textRules(3));
const zods = z.string().check(
  z.minLength(1, 'must not be empty'),
  z.maxLength(3, 'must be at most 3 characters'),
  z.refine((s) => s.isWellFormed(), 'must be well-formed Unicode (no lone surrogate)'),
  z.refine(
    (s) => new RegExp(NO_CONTROL_CHARACTERS_PATTERN, 'u').test(s),
    'must not contain control characters',
  ),
);

describe('textRules', () => {
  it.each([
    ['', false],
    ['a', true],
    ['abc', true],
    ['abcd', false],
    ['🌿🌿🌿', true],
    ['🌿🌿🌿🌿', false],
    ['\uD83Cab', false],
    ['a\u0007', false],
    ['abcd\u0007\uDC00', false],
    ['a\u009F', false],
  ])('%j: accepted %s, with the issues of the zod checks it replaces', (text, accepted) => {
    const result = mine.safeParse(text);
    expect(result.success).toBe(accepted);
    expect(result.error?.issues).toEqual(zods.safeParse(text).error?.issues);
  });
});
