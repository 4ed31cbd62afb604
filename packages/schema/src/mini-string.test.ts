import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { miniString } from './mini-string.ts';

// miniString replaces zod/mini's z.string in the contract's schemas (a smaller browser bundle):
// the same values pass, and a refused one gets the issue z.string reports, message included.
const VALUES: readonly unknown[] = [
  '',
  'x',
  undefined,
  null,
  0,
  1n,
  true,
  [],
  ['x'],
  {},
  new String('x'),
  Symbol('x'),
];
const wrongType = (issue: { readonly input?: unknown }) =>
  issue.input === undefined ? 'is required' : `must be a string (got ${typeof issue.input})`;

describe('miniString', () => {
  it.each(VALUES.map((value) => [value]))('%o: the verdict and issues of z.string', (value) => {
    for (const [mine, zods] of [
      [miniString(), z.string()],
      [miniString({ error: wrongType }), z.string({ error: wrongType })],
    ] as const) {
      const got = mine.safeParse(value);
      const want = zods.safeParse(value);
      expect(got.success).toBe(want.success);
      expect(got.data).toStrictEqual(want.data);
      expect(got.error?.issues).toStrictEqual(want.error?.issues);
    }
  });

  it('skips the checks after it on a value of the wrong type, as z.string does', () => {
    const empty = z.check<string>((payload) => {
      if (payload.value.length === 0) payload.issues.push({ code: 'custom', input: '' });
    });
    expect(miniString().check(empty).safeParse(5).error?.issues).toHaveLength(1);
    expect(miniString().check(empty).safeParse('').error?.issues).toHaveLength(1);
    expect(miniString().check(empty).safeParse('x').success).toBe(true);
  });

  it('reads as an object field like z.string: a missing key is an issue, in its path', () => {
    const issues = z.object({ a: miniString({ error: wrongType }) }).safeParse({}).error?.issues;
    expect(issues).toStrictEqual(
      z.object({ a: z.string({ error: wrongType }) }).safeParse({}).error?.issues,
    );
    expect(issues?.[0]).toMatchObject({ path: ['a'], message: 'is required' });
  });
});
