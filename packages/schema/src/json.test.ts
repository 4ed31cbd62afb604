import { describe, expect, it } from 'vitest';
import { Int64 } from './int64.ts';
import {
  JsonTooDeepError,
  JsonTooWideError,
  MAX_JSON_DEPTH,
  MalformedJsonError,
  parseJson,
  parseJsonNumber,
} from './json.ts';
import { isLosslessNumber, LosslessNumber } from './lossless-number.ts';

describe('parseJsonNumber', () => {
  it.each([
    ['9007199254740993', 9007199254740993n],
    ['-9223372036854775808', -(2n ** 63n)],
    ['1.0', 1n],
    ['1e3', 1000n],
    ['12.30e1', 123n],
    ['-0.5e1', -5n],
    ['0.0', 0n],
    ['1000e-2', 10n],
    [`1${'0'.repeat(40)}e-40`, 1n],
    ['-0.0e-5', 0n],
  ])('reads the integral %s exactly as a bigint', (text, expected) => {
    expect(parseJsonNumber(text)).toBe(expected);
  });

  it.each([
    ['1.5', 1.5],
    ['1e400', Number.POSITIVE_INFINITY],
    ['0.001e1', 0.01],
    ['1e-5', 0.00001],
  ])('reads the non-integral or huge %s as a number', (text, expected) => {
    expect(parseJsonNumber(text)).toBe(expected);
  });

  it('does not build huge bigints from huge exponents', () => {
    expect(parseJsonNumber('1e999999999')).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('parseJson', () => {
  it('keeps every digit of int64 values', () => {
    expect(parseJson('{"id": 9223372036854775807}')).toEqual({ id: 9223372036854775807n });
  });

  it('keeps safe integers as numbers and only larger ones as bigints', () => {
    expect(parseJson('[9007199254740991, -9007199254740993, 1.0, 1.5, 2e-3]')).toEqual([
      9007199254740991,
      -9007199254740993n,
      1,
      1.5,
      0.002,
    ]);
  });

  it('throws on an empty text', () => {
    expect(() => parseJson('')).toThrow(MalformedJsonError);
  });

  it('keeps __proto__ as an own key, not a prototype', () => {
    const value = parseJson('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('rejects malformed text with a position, not parser internals', () => {
    expect(() => parseJson('{"a": ')).toThrow(MalformedJsonError);
    expect(() => parseJson('{"a": ')).toThrow(/^is not valid JSON \(at character \d+\)$/);
  });

  it(`parses valid JSON nested ${MAX_JSON_DEPTH} deep and refuses one level more as too deep`, () => {
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    expect(parseJson(nested(MAX_JSON_DEPTH))).toBeInstanceOf(Array);
    expect(
      parseJson(`{"a":${'{"b":'.repeat(MAX_JSON_DEPTH - 2)}{}${'}'.repeat(MAX_JSON_DEPTH - 1)}`),
    ).toBeTypeOf('object');
    expect(() => parseJson(nested(MAX_JSON_DEPTH + 1))).toThrow(JsonTooDeepError);
    expect(() => parseJson(nested(MAX_JSON_DEPTH + 1))).toThrow(
      `nests arrays and objects deeper than 64 levels (at character ${MAX_JSON_DEPTH})`,
    );
  });

  it('reports valid JSON nested 5,000 deep as too deep, not as malformed', () => {
    const text = `{"id": 1, "name": "Fern", "tag": ${'['.repeat(5000)}${']'.repeat(5000)}}`;
    let thrown: unknown;
    try {
      parseJson(text);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(JsonTooDeepError);
    expect(thrown).not.toBeInstanceOf(MalformedJsonError);
  });

  it('refuses 100,000 unclosed [ as too deep', () => {
    expect(() => parseJson('['.repeat(100_000))).toThrow(JsonTooDeepError);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const brackets = '['.repeat(200);
    expect(parseJson(`{"name": "${brackets}", "tag": "\\\\\\"${brackets}"}`)).toEqual({
      name: brackets,
      tag: `\\"${brackets}`,
    });
  });

  it('rejects a key repeated with another value', () => {
    expect(() => parseJson('{"a": 1, "a": 2}')).toThrow('repeats the key "a"');
  });

  // Found by the fuzz test (apps/server/test/e2e/fuzz.test.ts): these were read as the integers 1, 0,
  // 4503599627370496 and 9223372036854775808, so `{"id": 1e-400}` created plant 0.
  it.each(['1.0000000000000000001', '1e-400', '-1e-400', '4503599627370496.5'])(
    'keeps the non-integer %s, which a double rounds to an integer, apart from integers',
    (text) => {
      const { id } = parseJson(`{"id": ${text}}`) as { id: unknown };
      expect(isLosslessNumber(id)).toBe(true);
      const result = Int64.safeParse(id);
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.message).toMatch(/got a non-integer number/);
    },
  );

  it('still treats an exact repeat of such a number as harmless', () => {
    expect(parseJson('{"a": 1e-400, "a": 1e-400}')).toEqual({ a: new LosslessNumber('1e-400') });
    expect(() => parseJson('{"a": 1e-400, "a": 0}')).toThrow('repeats the key "a"');
  });

  it('treats the same text again as harmless however it is spaced', () => {
    expect(parseJson('{"a": [1], "a":[1] ,"b":{}, "b" :\n{}}')).toEqual({ a: [1], b: {} });
    expect(() => parseJson('{"a": [1], "a": [1 ]}')).toThrow('repeats the key "a"');
  });

  it.each([
    ['9007199254740991', 9007199254740991],
    ['-9007199254740991', -9007199254740991],
    ['9007199254740992', 9007199254740992n],
    ['9999999999999999', 9999999999999999n],
  ])('reads the 16-digit integer %s exactly', (text, expected) => {
    expect(parseJson(text)).toBe(expected);
  });
});

describe('parseJson with flatRecord (a NewPlant body)', () => {
  const limits = { maxMembers: 4, maxStringLength: 30 };
  const flat = (text: string) => parseJson(text, { flatRecord: limits });

  it('reads a flat record exactly as without it', () => {
    const text = '{"id": 9223372036854775807, "name": "Fern", "tag": null, "n": 1.5}';
    expect(flat(text)).toEqual(parseJson(text));
  });

  it('reads every small flat text as without it, whether or not JSON.parse may read it', () => {
    // Members that the JSON.parse path reads and members that send a text the whole way
    // (escapes, repeated keys, fractions, 16 digits and more, -0), mixed at random, and one
    // that is not JSON.
    const keys = ['"id"', '"name"', '"tag"', '"a:b"', '"__proto__"', '""', '"\\u003a"'];
    const values = [
      '""',
      '"Fern"',
      '"x:y"',
      '"\\"q\\""',
      '"tab\there"', // a raw control character: not JSON, on either path
      '0',
      '-0',
      '7',
      '-5',
      '123456789012345',
      '1234567890123456',
      '9007199254740993',
      '1.0',
      '1e3',
      '4503599627370496.5',
      'true',
      'false',
      'null',
    ];
    const spaces = ['', ' ', '\n', '\t ', '\r\n'];
    let seed = 34;
    const pick = <T>(list: readonly T[]): T => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return list[seed % list.length] as T;
    };
    const outcome = (read: () => unknown) => {
      try {
        return { value: read() };
      } catch (error) {
        return { error: String(error) };
      }
    };
    let plain = 0;
    for (let n = 0; n < 3000; n += 1) {
      const count = n % 5;
      const members = Array.from(
        { length: count },
        () => `${pick(keys)}${pick(spaces)}:${pick(spaces)}${pick(values)}`,
      );
      const text = `${pick(spaces)}{${members.join(`${pick(spaces)},`)}}${pick(spaces)}`;
      if (!text.includes('\\')) plain += 1;
      expect(
        outcome(() => flat(text)),
        text,
      ).toEqual(outcome(() => parseJson(text)));
    }
    expect(plain).toBeGreaterThan(1000);
  });

  it('reads arrays, and objects inside the record, as empty ones', () => {
    expect(flat('{"id": [1, [2, {"a": "]"}]], "o": {"p": {"q": 1}}}')).toEqual({ id: [], o: {} });
    expect(flat(`[${'1,'.repeat(1000)}1]`)).toEqual([]);
  });

  it('keeps the positions of the text: a malformed member is reported where it is', () => {
    const text = `{"a": [${'1,'.repeat(100)}1], "b": tru}`;
    expect(() => flat(text)).toThrow(`at character ${text.indexOf('tru')}`);
  });

  it('refuses a bracket closed by the other kind, and nesting past the depth limit', () => {
    expect(() => flat('{"a": [1, 2}')).toThrow(MalformedJsonError);
    // Past a long run of numbers, the brackets after it still count.
    const run = `1, ${'22, '.repeat(500)}3`;
    expect(flat(`{"a": [${run}, [${run}], "]"], "b": 1}`)).toEqual({ a: [], b: 1 });
    expect(() => flat(`{"a": [${run}}`)).toThrow(`at character ${7 + run.length}`);
    const deep = `{"a": ${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}}`;
    expect(() => flat(deep)).toThrow(JsonTooDeepError);
    expect(() =>
      flat(`{"a": ${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}}`),
    ).not.toThrow();
  });

  it('checks a member of many deep groups, not kept, run by run', () => {
    const group = (inner: string) => `${'['.repeat(60)}${inner}${']'.repeat(60)}`;
    const groups = Array.from({ length: 50 }, (_, i) => group(`{"k": "]}", "n": [${i}]}`));
    expect(flat(`{"a": [${groups.join(', ')}], "b": 2}`)).toEqual({ a: [], b: 2 });
    const crossed = `{"a": [${group('{"k": 1]')}]}`;
    expect(() => flat(crossed)).toThrow(`at character ${crossed.indexOf(']')}`);
    const unclosed = `{"a": [${'['.repeat(60)}`;
    expect(() => flat(unclosed)).toThrow(`at character ${unclosed.length}`);
  });

  it('cuts a long string where a character ends, so it stays too long and well-formed', () => {
    const value = flat(
      `{"name": "${'\\uD83C\\uDF3F'.repeat(20)}", "k": "${'x'.repeat(100)}"}`,
    ) as Record<string, string>;
    expect(value.name).toBe('🌿'.repeat(15));
    expect(flat(`"x${'🌿'.repeat(20)}"`)).toBe(`x${'🌿'.repeat(14)}`);
    expect(value.k).toBe('x'.repeat(30));
    expect(flat(`"${'é'.repeat(100)}"`)).toBe('é'.repeat(30));
  });

  it('refuses more members than allowed at the one too many, naming the first three keys', () => {
    const text = `{${Array.from({ length: 6500 }, (_, i) => `"k${i}": {"x": [${i}]}`).join(',')}}`;
    let thrown: unknown;
    try {
      flat(text);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(JsonTooWideError);
    expect(thrown).toMatchObject({ firstKeys: ['k0', 'k1', 'k2'] });
    // Not read past member 5: the nesting at member 6 is never looked at.
    expect(() => flat(`{${'"a":1,'.repeat(5)}"b":${'['.repeat(100)}}`)).toThrow(JsonTooWideError);
  });

  it('still refuses a key repeated with another value, quoting it shortened', () => {
    const key = 'k'.repeat(100);
    expect(() => flat(`{"${key}": 1, "${key}": 2}`)).toThrow(/^repeats the key "k{20}/);
    expect(() => parseJson(`{"${key}": 1, "${key}": 2}`)).toThrow(
      `repeats the key "${'k'.repeat(39)}…"`,
    );
  });

  it('reads an unterminated string as malformed', () => {
    expect(() => flat(`{"a": "${'x'.repeat(100)}`)).toThrow(MalformedJsonError);
  });
});

describe('parseJsonNumber on long integers', () => {
  it('reads an integer of more than 400 digits as a number, not a huge bigint', () => {
    expect(parseJsonNumber('9'.repeat(65_000))).toBe(Number.POSITIVE_INFINITY);
    expect(parseJsonNumber(`${'9'.repeat(65_000)}.0`)).toBe(Number.POSITIVE_INFINITY);
    expect(parseJsonNumber('9'.repeat(400))).toBe(10n ** 400n - 1n);
  });
});
