import { describe, expect, it } from 'vitest';
import { describeValue } from './describe-value.ts';
import { LosslessNumber } from './lossless-number.ts';

describe('describeValue', () => {
  it.each([
    [undefined, 'nothing'],
    [null, 'null'],
    [[], 'an array'],
    [{}, 'an object'],
    ['x', 'a string'],
    [1.5, 'a number'],
    [2n ** 70n, 'a number'],
    [new LosslessNumber('1.0000000000000000001'), 'a number'],
    [true, 'a boolean'],
    [Symbol('s'), 'a symbol'],
  ])('names %o as %s', (value, expected) => {
    expect(describeValue(value)).toBe(expected);
  });
});
