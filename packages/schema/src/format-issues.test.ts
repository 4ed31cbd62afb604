import { describe, expect, it } from 'vitest';
import { ERROR_MESSAGES } from './error-messages.ts';
import { formatIssues, LISTED_PROBLEMS } from './format-issues.ts';
import { JsonTooWideError } from './json.ts';
import { NewPlant } from './plant.ts';

const messageFor = (input: unknown) => {
  const result = NewPlant.safeParse(input);
  if (result.success) throw new Error('expected a refusal');
  return formatIssues(result.error.issues);
};

describe('formatIssues stays short whatever the input', () => {
  it('says only the type of a field of the wrong type, whatever the value holds', () => {
    // The server reads an array's content as skipped (`[]`): both must give one message.
    expect(messageFor({ id: 1, name: [] })).toBe('name: must be a string (got an array)');
    expect(messageFor({ id: 1, name: ['a'] })).toBe('name: must be a string (got an array)');
  });

  it('lists up to three unknown keys one by one, as before', () => {
    expect(messageFor({ id: 1, name: 'x', a: 1, b: 2, c: 3 })).toBe(
      'a: unknown property; b: unknown property; c: unknown property',
    );
  });

  it('names two of many unknown keys and counts the rest', () => {
    const input: Record<string, unknown> = { id: 1, name: 'Fern' };
    for (let i = 0; i < 6500; i += 1) input[`k${i}`] = i;
    expect(messageFor({ wheels: 1, wings: 2, ...input })).toBe(
      '`wheels`, `wings` and 6,500 more: unknown properties',
    );
  });

  it('quotes a long key shortened', () => {
    expect(messageFor({ id: 1, name: 'x', ['k'.repeat(65_000)]: 1 })).toBe(
      `${'k'.repeat(39)}…: unknown property`,
    );
  });

  it(`lists at most ${LISTED_PROBLEMS} problems, then how many more`, () => {
    const issues = Array.from({ length: 1000 }, (_, i) => ({
      code: 'custom' as const,
      path: [`f${i}`],
      message: 'is wrong',
      input: undefined,
    }));
    expect(formatIssues(issues)).toBe(
      'f0: is wrong; f1: is wrong; f2: is wrong; f3: is wrong; f4: is wrong; and 995 more problems',
    );
  });

  it('says every problem of a NewPlant with all three fields wrong and unknown keys', () => {
    expect(messageFor({ id: 'x', name: 5, tag: null, a: 1, b: 2, c: 3, d: 4 })).toMatch(
      /^id: .*; name: .*; tag: .*; `a`, `b` and 2 more: unknown properties$/,
    );
  });
});

describe('the message for a body with too many members', () => {
  it('names the first keys, shortened', () => {
    expect(
      ERROR_MESSAGES.validationFailed.tooManyProperties(
        new JsonTooWideError(['wheels', 'wings', 'k'.repeat(1000)]),
        16,
      ),
    ).toBe(`(body): has more than 16 properties: \`wheels\`, \`wings\`, \`${'k'.repeat(39)}…\`, …`);
  });
});
