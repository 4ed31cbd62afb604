import { ErrorBody } from '@plant-store/schema';
import { describe, expect, it } from 'vitest';
import { parseResponseJson } from './parse-response-json.ts';

describe('parseResponseJson', () => {
  it('keeps safe integers as numbers, so an Error body validates', () => {
    const value = parseResponseJson('{"error":40901,"message":"taken"}');
    expect(value).toEqual({ error: 40901, message: 'taken' });
    expect(ErrorBody.safeParse(value).success).toBe(true);
  });

  it('turns integers beyond 2^53 into exact bigints', () => {
    expect(parseResponseJson('[9223372036854775807, -9007199254740993, 9007199254740991]')).toEqual(
      [9223372036854775807n, -9007199254740993n, 9007199254740991],
    );
  });

  it('keeps fractions as numbers', () => {
    expect(parseResponseJson('[1.5, 2e-3]')).toEqual([1.5, 0.002]);
  });

  it('throws on text that is not JSON, and on an empty body', () => {
    expect(() => parseResponseJson('<html>Bad gateway</html>')).toThrow();
    expect(() => parseResponseJson('')).toThrow();
  });
});
