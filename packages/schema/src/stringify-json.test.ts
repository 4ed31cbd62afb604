import {
  LosslessNumber as LosslessJsonNumber,
  stringify as losslessStringify,
} from 'lossless-json';
import { describe, expect, it } from 'vitest';
import { parseJson } from './json.ts';
import { LosslessNumber } from './lossless-number.ts';
import { stringifyJson } from './stringify-json.ts';

describe('stringifyJson', () => {
  it('writes bigints as exact JSON integers', () => {
    expect(stringifyJson({ id: 2n ** 63n - 1n, name: 'x' })).toBe(
      '{"id":9223372036854775807,"name":"x"}',
    );
  });

  it('writes a key or string that holds its mark (U+FDD0) as it is, and the numbers beside it', () => {
    const value = { '\ufdd0': '\ufdd0', s: 'a\ufdd0\ufdd0"', id: 1n, n: [2n, '\ufdd0'] };
    expect(stringifyJson(value)).toBe(
      '{"\ufdd0":"\ufdd0","s":"a\ufdd0\ufdd0\\"","id":1,"n":[2,"\ufdd0"]}',
    );
  });

  it('round-trips through parseJson', () => {
    const value = { id: -(2n ** 63n), name: 'Fern', tag: 'ä' };
    expect(parseJson(stringifyJson(value))).toEqual(value);
  });

  it('writes what JSON.stringify writes for a value without bigints', () => {
    const value = {
      s: 'a"\\\n\u2028\ud800🌿',
      n: [0, -0, 1.5, 1e21, Number.NaN, Number.POSITIVE_INFINITY],
      b: [true, false, null, undefined, () => 1],
      skipped: undefined,
      date: new Date(0),
      boxed: [new String('x'), new Number(2), new Boolean(false)],
      nested: { '': { __proto__: 1, 'a:b': [[], {}] } },
    };
    expect(stringifyJson(value)).toBe(JSON.stringify(value));
    expect(() => stringifyJson(undefined)).toThrow(TypeError);
  });

  it('writes what lossless-json wrote (its former implementation), bigints and LosslessNumbers too', () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const leaf = (): unknown =>
      [
        () => BigInt(Math.floor(random() * 2 ** 53)) * 2n ** 10n - 2n ** 62n,
        () => Math.floor(random() * 1e6) / 8,
        () =>
          String.fromCodePoint(...Array.from({ length: 4 }, () => Math.floor(random() * 0x3000))),
        () => new LosslessNumber('1.0000000000000000001'),
        () => null,
        () => random() < 0.5,
      ][Math.floor(random() * 6)]?.();
    const value = (depth: number): unknown => {
      if (depth > 3 || random() < 0.4) return leaf();
      const length = Math.floor(random() * 4);
      return random() < 0.5
        ? Array.from({ length }, () => value(depth + 1))
        : Object.fromEntries(Array.from({ length }, (_, i) => [`k${i}`, value(depth + 1)]));
    };
    for (let run = 0; run < 500; run++) {
      const input = value(0);
      // lossless-json writes its own LosslessNumber as its text.
      const theirs = (_key: string, member: unknown) =>
        member instanceof LosslessNumber ? new LosslessJsonNumber(member.value) : member;
      expect(stringifyJson(input)).toBe(losslessStringify(input, theirs));
    }
  });
});
