import { INT64_MAX, INT64_MIN } from '@plant-store/schema';
import fc from 'fast-check';
import { FIELD_RULES, type FieldRule } from './oracle.ts';

// fast-check arbitraries for the create-plant fuzz test, written by hand (zod-fast-check does
// not support zod 4). Every JSON piece carries what an independent reading of its text says
// (`int`: the exact integer it spells; `str`: the string it spells), so the test can predict
// the server's answer without using the server's own parser or schemas.

/** A JSON value as text, and what it means when that is simple. */
export interface JsonPiece {
  readonly text: string;
  /** Set when the text is a number whose exact value is an integer (`5`, `5.0`, `50e-1`). */
  readonly int?: bigint;
  /** Set when the text is a JSON string: the string it decodes to. */
  readonly str?: string;
}

/** A JSON object as a list of members: keys may repeat, order is kept. */
export type Members = readonly (readonly [key: string, value: JsonPiece])[];

const TWO_31 = 2n ** 31n;
const TWO_53 = 2n ** 53n;

/** int64 values at the edges of the ranges a careless implementation gets wrong. */
export const INT64_EDGES: readonly bigint[] = [
  0n,
  1n,
  -1n,
  TWO_31 - 1n,
  -TWO_31,
  TWO_31,
  TWO_53 - 1n,
  TWO_53,
  TWO_53 + 1n,
  -TWO_53 + 1n,
  -TWO_53 - 1n,
  INT64_MAX,
  INT64_MAX - 1n,
  INT64_MIN,
  INT64_MIN + 1n,
];

/** Integers just outside int64, and further. */
export const OUTSIDE_INT64: readonly bigint[] = [
  INT64_MAX + 1n,
  INT64_MIN - 1n,
  2n ** 64n,
  -(2n ** 64n),
  10n ** 30n,
];

const int = (value: bigint, text = String(value)): JsonPiece => ({ text, int: value });
const other = (text: string): JsonPiece => ({ text });

/** Ways of writing the integer `value` in JSON, all of them exactly `value`. */
export function integralSpellings(value: bigint): string[] {
  const digits = (value < 0n ? -value : value).toString();
  const sign = value < 0n ? '-' : '';
  const spellings = [String(value), `${value}.0`, `${value}.000`, `${value}e0`, `${value}E+0`];
  if (value === 0n) spellings.push('-0', '0e5', '-0.0e-3');
  else spellings.push(`${value}0e-1`, `${value}00E-2`);
  if (digits.length > 1) {
    // 123 → 1.23e2
    spellings.push(`${sign}${digits[0]}.${digits.slice(1)}e${digits.length - 1}`);
  }
  return spellings;
}

/** An integer (an edge, from a small pool that makes ids collide, or anything) as JSON. */
export function integerPiece(): fc.Arbitrary<JsonPiece> {
  const value = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...INT64_EDGES) },
    { weight: 3, arbitrary: fc.bigInt(0n, 40n) },
    { weight: 2, arbitrary: fc.bigInt(INT64_MIN, INT64_MAX) },
    { weight: 1, arbitrary: fc.constantFrom(...OUTSIDE_INT64) },
    { weight: 1, arbitrary: fc.bigInt(-(2n ** 70n), 2n ** 70n) },
  );
  return value.chain((v) => fc.constantFrom(...integralSpellings(v)).map((text) => int(v, text)));
}

/** Numbers whose exact value is not an integer, though some round to one as a double. */
const FRACTIONAL_TEXTS = [
  '0.5',
  '-0.5',
  '1.5',
  '15e-1',
  '1E-1',
  '1.0000000000000000001',
  `1.${'0'.repeat(40)}1`,
  '1e-400',
  '-1e-400',
  '4503599627370496.5',
  '-4503599627370496.5',
  '9007199254740991.5',
  '9223372036854775806.5',
  '1e-999999999',
];

/** Integral numbers written so that their size is only visible after the exponent. */
const EXPONENT_TEXTS: readonly JsonPiece[] = [
  int(10n ** 19n, '1e19'),
  int(INT64_MAX, '9.223372036854775807e18'),
  int(INT64_MAX + 1n, '9.223372036854775808e18'),
  int(INT64_MIN, '-9.223372036854775808e18'),
  int(INT64_MAX, '92233720368547758070e-1'),
  int(1n, `1${'0'.repeat(40)}e-40`),
  other('1e999999999'),
  other('-1e999999999'),
  int(10n ** 400n - 1n, '9'.repeat(400)),
];

/** A value for `id`: mostly integers (valid or not), then near misses and wrong types. */
export function idPiece(): fc.Arbitrary<JsonPiece> {
  return fc.oneof(
    { weight: 8, arbitrary: integerPiece() },
    {
      weight: 2,
      arbitrary: fc.oneof(
        fc.constantFrom(...FRACTIONAL_TEXTS).map(other),
        fc.bigInt(-1000n, 1000n).map((v) => other(`${v}.${v < 0n ? '25' : '75'}`)),
      ),
    },
    { weight: 1, arbitrary: fc.constantFrom(...EXPONENT_TEXTS) },
    { weight: 2, arbitrary: wrongType() },
  );
}

/** JSON values of the wrong type for every field: strings of digits, null, arrays, objects. */
function wrongType(): fc.Arbitrary<JsonPiece> {
  return fc.oneof(
    fc.bigInt(-5n, 5n).map((v) => ({ text: `"${v}"`, str: String(v) })),
    fc.constantFrom('null', 'true', 'false', '[]', '{}', '[1]', '{"id":1,"name":"x"}').map(other),
    // Arrays, objects, booleans and null only: a number or string would need classifying.
    fc
      .jsonValue({ maxDepth: 2 })
      .filter((v) => typeof v !== 'number' && typeof v !== 'string')
      .map((v) => other(JSON.stringify(v))),
  );
}

const CONTROL_CHARACTERS = ['\u0000', '\u0007', '\t', '\n', '\u001f', '\u007f', '\u0085', '\u009f'];
const ODD_STRINGS = [
  '',
  ' ',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'null',
  '\u200b',
  '\ufeff',
  '\u2028\u2029',
  'a\u0301',
  '\u{1f331}',
  '\u202eevil',
  '<script>alert(1)</script>',
  "Robert'); DROP TABLE plants;--",
  '%s%n',
  '\\',
  '"',
];

/**
 * One code point of the whole Unicode range except the surrogates: what fast-check's
 * `unit: 'binary'` draws, without the map of all 1.1 million code points it builds first in
 * every process that draws one.
 */
export const anyCodePoint: fc.Arbitrary<string> = fc
  .oneof(fc.integer({ min: 0, max: 0xd7ff }), fc.integer({ min: 0xe000, max: 0x10ffff }))
  .map((code) => String.fromCodePoint(code));

/** Strings near every rule on the text fields: lengths, surrogates, controls, Unicode. */
export function oddString(): fc.Arbitrary<string> {
  const around = (s: fc.Arbitrary<string>) =>
    fc
      .tuple(
        fc.string({ maxLength: 5 }),
        s,
        fc.string({ maxLength: 5, unit: 'grapheme-composite' }),
      )
      .map(([a, b, c]) => a + b + c);
  return fc.oneof(
    { weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: 30 }) },
    { weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 20, unit: 'grapheme' }) },
    { weight: 2, arbitrary: fc.string({ maxLength: 12, unit: anyCodePoint }) },
    { weight: 2, arbitrary: fc.constantFrom(...ODD_STRINGS) },
    {
      weight: 2,
      arbitrary: around(
        fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
      ),
    },
    { weight: 2, arbitrary: around(fc.constantFrom(...CONTROL_CHARACTERS)) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(1, 99, 100, 101, 199, 200, 201, 5000), fc.constantFrom('x', 'é'))
        .map(([n, c]) => c.repeat(n)),
    },
    // Astral characters: 2 UTF-16 units each, 1 character (code point) for the length rules.
    {
      weight: 1,
      arbitrary: fc.constantFrom(50, 100, 101, 200, 201).map((n) => '\u{1f331}'.repeat(n)),
    },
  );
}

/** `value` as a JSON string, either as JSON.stringify writes it or with every non-ASCII escaped. */
export function stringPiece(value: string, escapeAll: boolean): JsonPiece {
  const text = escapeAll
    ? `"${[...JSON.stringify(value).slice(1, -1)]
        .map((unit) => {
          const code = unit.codePointAt(0) ?? 0;
          if (code < 0x7f) return unit;
          return [...unit]
            .flatMap((c) => {
              const units: string[] = [];
              for (let i = 0; i < c.length; i++) units.push(c.charCodeAt(i).toString(16));
              return units;
            })
            .map((hex) => `\\u${hex.padStart(4, '0')}`)
            .join('');
        })
        .join('')}"`
    : JSON.stringify(value);
  return { text, str: value };
}

/** A value for a text field: mostly strings (odd or not), sometimes the wrong type. */
export function textPiece(): fc.Arbitrary<JsonPiece> {
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(oddString(), fc.boolean())
        .map(([value, escapeAll]) => stringPiece(value, escapeAll)),
    },
    { weight: 1, arbitrary: wrongType() },
  );
}

/** Keys a NewPlant must not have, prototype-polluting ones first. */
export const EXTRA_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'extra',
  'wheels',
  'ID',
  'Name',
  ' id',
  'name\u200b',
  '',
  'tag\u0000',
];

type Mutation =
  | { readonly op: 'drop'; readonly key: string }
  | { readonly op: 'extra'; readonly key: string; readonly value: JsonPiece }
  | { readonly op: 'repeat'; readonly key: string; readonly same: boolean }
  | { readonly op: 'repeatWith'; readonly key: string; readonly value: JsonPiece }
  /** An optional field sent as `null` (which is not "left out"). */
  | { readonly op: 'null'; readonly key: string }
  | { readonly op: 'reverse' };

const FIELDS = Object.keys(FIELD_RULES);
const OPTIONAL_FIELDS = FIELDS.filter((field) => !FIELD_RULES[field]?.required);

function mutation(): fc.Arbitrary<Mutation> {
  const field = fc.constantFrom('id', ...FIELDS);
  return fc.oneof(
    fc.record({ op: fc.constant('drop' as const), key: field }),
    fc.record({
      op: fc.constant('extra' as const),
      key: fc.constantFrom(...EXTRA_KEYS),
      value: fc.oneof(textPiece(), idPiece()),
    }),
    fc.record({ op: fc.constant('repeat' as const), key: field, same: fc.boolean() }),
    fc.record({
      op: fc.constant('repeatWith' as const),
      key: field,
      value: fc.oneof(textPiece(), integerPiece()),
    }),
    fc.record({ op: fc.constant('null' as const), key: fc.constantFrom(...OPTIONAL_FIELDS) }),
    fc.constant({ op: 'reverse' as const }),
  );
}

function applyMutation(members: Members, m: Mutation): Members {
  switch (m.op) {
    case 'drop':
      return members.filter(([key]) => key !== m.key);
    case 'extra':
      return [...members, [m.key, m.value]];
    case 'repeat': {
      const found = members.find(([key]) => key === m.key);
      if (!found) return members;
      const [, value] = found;
      // The same value again, as the same text or (for an integer) another spelling of it.
      const again =
        m.same || value.int === undefined
          ? value
          : int(value.int, integralSpellings(value.int).at(-1) ?? value.text);
      return [...members, [m.key, again]];
    }
    case 'repeatWith':
      return [...members, [m.key, m.value]];
    case 'null':
      return [...members.filter(([key]) => key !== m.key), [m.key, other('null')]];
    case 'reverse':
      return [...members].reverse();
  }
}

/** Members for an id and each field: a required one always, an optional one or not. */
function plantMembers(
  id: fc.Arbitrary<JsonPiece>,
  pieceFor: (rule: FieldRule) => fc.Arbitrary<JsonPiece>,
): fc.Arbitrary<Members> {
  const fields = Object.entries(FIELD_RULES).map(([field, rule]) =>
    (rule.required ? pieceFor(rule) : fc.option(pieceFor(rule), { nil: undefined })).map((value) =>
      value === undefined ? [] : [[field, value] as const],
    ),
  );
  return fc
    .tuple(id, ...fields)
    .map(([idValue, ...given]): Members => [['id', idValue], ...given.flat()]);
}

/** An integer near a field's bounds, or anywhere, as JSON. */
function boundedIntegerPiece(minimum: bigint, maximum: bigint): fc.Arbitrary<JsonPiece> {
  const value = fc.oneof(
    fc.constantFrom(minimum - 1n, minimum, minimum + 1n, maximum - 1n, maximum, maximum + 1n),
    fc.bigInt(minimum, maximum),
  );
  return value.chain((v) => fc.constantFrom(...integralSpellings(v)).map((text) => int(v, text)));
}

/** A value for a field with `rule`: mostly near its rules, sometimes the wrong type. */
export function fieldPiece(rule: FieldRule): fc.Arbitrary<JsonPiece> {
  switch (rule.type) {
    case 'string':
      return textPiece();
    case 'integer':
      return fc.oneof(
        { weight: 6, arbitrary: boundedIntegerPiece(rule.minimum, rule.maximum) },
        { weight: 1, arbitrary: idPiece() },
      );
    case 'boolean':
      return fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom('true', 'false').map(other) },
        { weight: 1, arbitrary: wrongType() },
      );
  }
}

/** A NewPlant: valid or near it, built from members (the base, then 0–3 mutations). */
export function newPlantMembers(): fc.Arbitrary<Members> {
  return fc
    .tuple(plantMembers(idPiece(), fieldPiece), fc.array(mutation(), { maxLength: 3 }))
    .map(([members, mutations]) => mutations.reduce(applyMutation, members));
}

/** A NewPlant that is (almost always) valid: an id that is often taken, plain or Unicode text. */
export function plainPlantMembers(): fc.Arbitrary<Members> {
  const value = fc.oneof(
    fc.bigInt(0n, 60n),
    fc.constantFrom(...INT64_EDGES),
    fc.bigInt(INT64_MIN, INT64_MAX),
  );
  const id = value.chain((v) =>
    fc.constantFrom(...integralSpellings(v)).map((text) => int(v, text)),
  );
  const text = fc
    .tuple(
      fc.oneof(
        fc.string({ minLength: 1, maxLength: 3 }),
        fc.string({ minLength: 1, maxLength: 30, unit: 'grapheme' }),
      ),
      fc.boolean(),
    )
    .map(([value, escapeAll]) => stringPiece(value, escapeAll));
  const valid = (rule: FieldRule): fc.Arbitrary<JsonPiece> => {
    switch (rule.type) {
      case 'string':
        return text;
      case 'integer':
        return fc.bigInt(rule.minimum, rule.maximum).map((v) => int(v));
      case 'boolean':
        return fc.constantFrom('true', 'false').map(other);
    }
  };
  return plantMembers(id, valid);
}

const WHITESPACE = fc.constantFrom('', '', '', ' ', '\n', '\t', '\r\n  ');

/** Writes members as a JSON object, with arbitrary whitespace between the tokens. */
export function membersText(): (members: Members) => fc.Arbitrary<string> {
  return (members) =>
    fc
      .array(WHITESPACE, { minLength: members.length * 3 + 2, maxLength: members.length * 3 + 2 })
      .map((spaces) => {
        let i = 0;
        const ws = () => spaces[i++] ?? '';
        const parts = members.map(
          ([key, value]) => `${ws()}${JSON.stringify(key)}${ws()}:${ws()}${value.text}`,
        );
        return `{${parts.join(',')}${ws()}}${ws()}`;
      });
}
