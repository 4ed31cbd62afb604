import { describe, expect, it } from 'vitest';
import { parseJsonNumber, toSchemaNumber } from './json-number.ts';
import { isLosslessNumber } from './lossless-number.ts';

describe('parseJsonNumber', () => {
  it.each([
    ['-0', 0n],
    ['-0.0', 0n],
    ['-0.0e7', 0n],
    ['0e-5', 0n],
    ['9223372036854775807', 2n ** 63n - 1n],
    ['-9223372036854775808', -(2n ** 63n)],
    ['9223372036854775808', 2n ** 63n],
    ['0.001e3', 1n],
    ['-12.5E+1', -125n],
    [`1${'0'.repeat(30)}`, 10n ** 30n],
    ['1e30', 10n ** 30n],
  ])('reads %s as the bigint %s', (text, expected) => {
    expect(parseJsonNumber(text)).toBe(expected);
  });

  it('counts no leading zero toward its bound of 400 digits', () => {
    expect(parseJsonNumber(`0.${'0'.repeat(500)}1e501`)).toBe(1n);
    expect(parseJsonNumber(`-0.${'0'.repeat(500)}${'9'.repeat(400)}e900`)).toBe(1n - 10n ** 400n);
  });

  it.each([
    ['1e31', 1e31],
    ['1e-1', 0.1],
    ['-0.5', -0.5],
    ['1E400', Number.POSITIVE_INFINITY],
    ['-1e400', Number.NEGATIVE_INFINITY],
  ])('reads %s as the number %s', (text, expected) => {
    expect(parseJsonNumber(text)).toBe(expected);
  });
});

describe('toSchemaNumber', () => {
  it('gives a safe integer as a number, -0 as 0', () => {
    expect(toSchemaNumber('0')).toBe(0);
    expect(toSchemaNumber('-0')).toBe(0);
    expect(toSchemaNumber('1e3')).toBe(1000);
    expect(toSchemaNumber('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
    expect(toSchemaNumber('-9007199254740991')).toBe(Number.MIN_SAFE_INTEGER);
  });

  it('gives a larger integer as an exact bigint', () => {
    expect(toSchemaNumber('9007199254740992')).toBe(2n ** 53n);
    expect(toSchemaNumber('-9007199254740992')).toBe(-(2n ** 53n));
    expect(toSchemaNumber('-9223372036854775808')).toBe(-(2n ** 63n));
    expect(toSchemaNumber('92233720368547758.08e2')).toBe(2n ** 63n);
  });

  it('keeps a non-integer whose double is an integer as its text', () => {
    for (const text of ['1.0000000000000000001', '1e-400', '-1e-400', '4503599627370496.5']) {
      const value = toSchemaNumber(text);
      expect(isLosslessNumber(value), text).toBe(true);
      expect(String(value)).toBe(text);
    }
  });

  it('gives other numbers as numbers', () => {
    expect(toSchemaNumber('1.5')).toBe(1.5);
    expect(toSchemaNumber('1e31')).toBe(1e31);
    expect(toSchemaNumber('-1e400')).toBe(Number.NEGATIVE_INFINITY);
  });
});
