import { PLANT_FIELDS, parseJsonNumber } from '@plant-store/schema';
import { buildOpenApiDocument } from '@plant-store/schema/openapi';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  anyCodePoint,
  EXTRA_KEYS,
  INT64_EDGES,
  integralSpellings,
  type JsonPiece,
  type Members,
  stringPiece,
} from './arbitraries.ts';
import { FIELD_RULES, fieldRules, isValidText, verdictOf } from './oracle.ts';

const id = (v: bigint, text = String(v)): JsonPiece => ({ text, int: v });
const str = (s: string): JsonPiece => stringPiece(s, false);

describe('verdictOf (the fuzz test’s model of a body)', () => {
  it('creates a plant from exactly id, name and an optional tag', () => {
    expect(
      verdictOf([
        ['id', id(1n)],
        ['name', str('Fern')],
      ]),
    ).toEqual({
      kind: 'create',
      id: 1n,
      plant: { name: 'Fern' },
    });
    expect(
      verdictOf([
        ['tag', str('t')],
        ['name', str('a')],
        ['id', id(-5n, '-5.0')],
      ]),
    ).toEqual({
      kind: 'create',
      id: -5n,
      plant: { name: 'a', tag: 't' },
    });
  });

  it("knows the contract's fields: FIELD_RULES is NewPlant's fields but id, in order", () => {
    expect(Object.keys(FIELD_RULES)).toEqual(PLANT_FIELDS);
    const fields = EXTRA_KEYS.filter((key) => key === 'id' || Object.hasOwn(FIELD_RULES, key));
    expect(fields, 'EXTRA_KEYS (arbitraries.ts) must hold no field of NewPlant').toEqual([]);
  });

  it('reads each type of field from the document, and names itself for a type it does not model', () => {
    const schema = buildOpenApiDocument().components?.schemas?.NewPlant as Parameters<
      typeof fieldRules
    >[0];
    expect(fieldRules(schema)).toEqual(FIELD_RULES);
    expect(
      fieldRules({
        properties: {
          id: { type: 'integer' },
          height: { type: 'integer', minimum: 1, maximum: 10 },
          indoor: { type: 'boolean' },
        },
        required: ['id', 'height'],
      }),
    ).toEqual({
      height: { type: 'integer', required: true, minimum: 1n, maximum: 10n },
      indoor: { type: 'boolean', required: false },
    });
    expect(() => fieldRules({ properties: { ratio: { type: 'number' } }, required: [] })).toThrow(
      /^apps\/server\/test\/security\/oracle.ts models no field like ratio .*: add its rule/,
    );
  });

  it.each<[string, Members]>([
    ['a missing id', [['name', str('a')]]],
    [
      'an id out of int64',
      [
        ['id', id(2n ** 63n)],
        ['name', str('a')],
      ],
    ],
    [
      'a fractional id',
      [
        ['id', { text: '1.5' }],
        ['name', str('a')],
      ],
    ],
    [
      'an extra __proto__ key',
      [
        ['id', id(1n)],
        ['name', str('a')],
        ['__proto__', str('x')],
      ],
    ],
    [
      'an empty name',
      [
        ['id', id(1n)],
        ['name', str('')],
      ],
    ],
    [
      'a lone surrogate',
      [
        ['id', id(1n)],
        ['name', str('a\ud800')],
      ],
    ],
    [
      'a C1 control character',
      [
        ['id', id(1n)],
        ['name', str('a\u0085')],
      ],
    ],
    [
      'a 101-character tag',
      [
        ['id', id(1n)],
        ['name', str('a')],
        ['tag', str('x'.repeat(101))],
      ],
    ],
    [
      'a null tag',
      [
        ['id', id(1n)],
        ['name', str('a')],
        ['tag', { text: 'null' }],
      ],
    ],
  ])('refuses %s with 40001', (_label, members) => {
    expect(verdictOf(members)).toEqual({ kind: 'error', status: 400, code: 40001 });
  });

  it('treats a key repeated with the same value as harmless, and another value as 40002', () => {
    const same: Members = [
      ['id', id(7n)],
      ['name', str('a')],
      ['id', id(7n, '7e0')],
    ];
    expect(verdictOf(same)).toMatchObject({ kind: 'create', id: 7n });
    const other: Members = [
      ['id', id(7n)],
      ['name', str('a')],
      ['id', id(8n)],
    ];
    expect(verdictOf(other)).toEqual({ kind: 'error', status: 400, code: 40002 });
  });

  it('counts length in code points: 200 astral characters are a valid name', () => {
    expect(isValidText(str('🌱'.repeat(200)), 200)).toBe(true);
    expect(isValidText(str('🌱'.repeat(201)), 200)).toBe(false);
  });
});

describe('the arbitraries', () => {
  it('spell each integer only in ways that are exactly that integer', () => {
    for (const value of [...INT64_EDGES, 123456789n, -10n]) {
      for (const text of integralSpellings(value)) {
        expect(BigInt(parseJsonNumber(text)), text).toBe(value);
        expect(() => JSON.parse(text), text).not.toThrow();
      }
    }
  });

  it('write strings as JSON that decodes to the same string, escaped or not', () => {
    fc.assert(
      fc.property(fc.string({ unit: anyCodePoint }), fc.boolean(), (value, escapeAll) => {
        const piece = stringPiece(value, escapeAll);
        expect(JSON.parse(piece.text)).toBe(value);
        if (escapeAll) expect(piece.text).toMatch(/^[\x20-\x7e]*$/);
      }),
    );
  });
});
