import { describe, expect, it } from 'vitest';
import { formatIssues } from './format-issues.ts';
import { INT64_MAX, INT64_MIN } from './int64.ts';
import { NewPlant, Plant, toPlant } from './plant.ts';

function verdict(input: unknown): string {
  const result = NewPlant.safeParse(input);
  return result.success ? 'ok' : formatIssues(result.error.issues);
}

describe('NewPlant', () => {
  it('accepts ids as safe-integer numbers or in-range bigints, always yielding a bigint', () => {
    expect(NewPlant.parse({ id: 7, name: 'Fern' })).toEqual({ id: 7n, name: 'Fern' });
    expect(NewPlant.parse({ id: INT64_MAX, name: 'x' }).id).toBe(INT64_MAX);
    expect(NewPlant.parse({ id: INT64_MIN, name: 'x' }).id).toBe(INT64_MIN);
  });

  it.each([
    [
      { id: INT64_MAX + 1n, name: 'x' },
      /^id: must be an integer .*\(got an integer out of range\)$/,
    ],
    [{ id: 2 ** 53 + 2, name: 'x' }, /^id: .*\(got an integer out of range\)$/],
    [{ id: 1.5, name: 'x' }, /^id: .*\(got a non-integer number\)$/],
    [{ id: '1', name: 'x' }, /^id: .*\(got string\)$/],
    [{ id: 1, name: 'x', tag: null }, /^tag: /],
    [{ id: 1, name: '' }, /^name: must not be empty$/],
    [{ id: 1, name: 'x', extra: 1 }, /^extra: unknown property$/],
    [{ id: 1, name: 'a\u0000' }, /^name: must not contain control characters$/],
    [{ id: 1, name: 'x', tag: 't'.repeat(101) }, /^tag: must be at most 100 characters$/],
  ])('rejects %o', (input, message) => {
    expect(verdict(input)).toMatch(message);
  });

  it('reports every problem, each with its path', () => {
    expect(verdict({ tag: 5, other: true })).toMatch(
      /^id: .*; name: .*; tag: .*; other: unknown property$/,
    );
  });
});

describe('Plant', () => {
  it('is forward compatible: extra response fields are dropped, not refused', () => {
    expect(Plant.parse({ name: 'Fern', addedLater: 1 })).toEqual({ name: 'Fern' });
  });

  it('is what toPlant makes of a NewPlant', () => {
    expect(toPlant({ name: 'Fern' })).toEqual({ name: 'Fern' });
    expect(toPlant({ name: 'Fern', tag: 'shade' })).toEqual({ name: 'Fern', tag: 'shade' });
  });
});
