import { parseJson } from '@plant-store/schema';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCanonicalNewPlant } from './json-body.ts';

/** What the lossless parser makes of `text`, or the error's class when it refuses it. */
function lossless(text: string): unknown {
  try {
    return parseJson(text);
  } catch (error) {
    return (error as Error).constructor;
  }
}

const idText = fc.oneof(
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
  fc.integer().map(String),
  fc.constantFrom(
    '0',
    '-0',
    '00',
    '01',
    '-',
    '1.0',
    '1e3',
    '9007199254740993',
    '-9223372036854775809',
  ),
);
const text = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom(
    '',
    '"',
    '\\',
    '\\"',
    '\\u0041',
    '\u0000',
    '\u001f',
    '\u007f',
    '\u0085',
    '\ud800',
  ),
);
const canonicalish = fc
  .tuple(idText, text, fc.option(text, { nil: undefined }))
  .map(
    ([id, name, tag]) =>
      `{"id":${id},"name":"${name}"${tag === undefined ? '' : `,"tag":"${tag}"`}}`,
  );

describe('parseCanonicalNewPlant', () => {
  it('gives exactly what the lossless parser gives, or leaves the text to it', () => {
    let taken = 0;
    fc.assert(
      fc.property(fc.oneof(canonicalish, fc.json(), fc.string()), (body) => {
        const fast = parseCanonicalNewPlant(body);
        if (fast === undefined) return;
        taken += 1;
        expect(fast).toStrictEqual(lossless(body));
      }),
      { numRuns: 5000 },
    );
    // The generator is built to hit the fast path often, so the comparison is real.
    expect(taken).toBeGreaterThan(500);
  });

  it('takes the bodies clients send and nothing unusual', () => {
    expect(parseCanonicalNewPlant('{"id":10,"name":"Monstera","tag":"indoor"}')).toStrictEqual({
      id: 10,
      name: 'Monstera',
      tag: 'indoor',
    });
    expect(parseCanonicalNewPlant('{"id":9223372036854775807,"name":"Fern"}')).toStrictEqual({
      id: 9223372036854775807n,
      name: 'Fern',
    });
    expect(parseCanonicalNewPlant('{"id":-0,"name":"Fern"}')).toStrictEqual({
      id: 0,
      name: 'Fern',
    });
    for (const unusual of [
      '{"id": 1,"name":"Fern"}',
      '{"name":"Fern","id":1}',
      '{"id":1,"name":"F\\u0065rn"}',
      '{"id":1,"name":"Fern","tag":"a","x":1}',
      '{"id":1.0,"name":"Fern"}',
      '{"id":01,"name":"Fern"}',
      '{"id":1,"name":"Fe\u0001rn"}',
      '{"id":1,"id":2,"name":"Fern"}',
      '{"id":12345678901234567890,"name":"Fern"}',
      ' {"id":1,"name":"Fern"}',
    ]) {
      expect(parseCanonicalNewPlant(unusual), unusual).toBeUndefined();
    }
  });
});
