import { expect, it } from 'vitest';
import { ERROR_ENTRIES, ERROR_STATUSES } from '../error-catalog.ts';
import { FIELD_LIST, fieldNames, NAME_MAX_LENGTH, TAG_MAX_LENGTH } from '../plant-fields.ts';
import { FIELD_PLACEHOLDERS, FIELD_PROSE, RESPONSE_HEADERS, STATUS_RESPONSES } from './prose.ts';

it("fills the long description's field placeholders from the field list", () => {
  const placeholders = FIELD_PLACEHOLDERS as Record<string, string>;
  expect(placeholders['fields:and']).toBe(fieldNames('and'));
  expect(placeholders['fields:or']).toBe(fieldNames('or'));
  for (const field of FIELD_LIST) {
    const named = (key: string) => placeholders[key]?.includes(`\`${field.name}\``);
    expect(named('OPTIONAL_FIELDS'), field.name).toBe(!field.required);
    expect(named('STRING_FIELDS'), field.name).toBe(field.type === 'string');
    expect(named(field.type === 'string' ? 'STRING_LIMITS' : 'OTHER_LIMITS'), field.name).toBe(
      true,
    );
  }
  // The shipped fields first, as the description reads them (a recipe appends others).
  expect(placeholders.STRING_LIMITS).toMatch(
    new RegExp(
      `^\`name\`: 1 to ${NAME_MAX_LENGTH} characters; \`tag\`: 1 to ${TAG_MAX_LENGTH} characters`,
    ),
  );
  expect(
    placeholders.STRING_MAX_LENGTHS?.startsWith(`${NAME_MAX_LENGTH} / ${TAG_MAX_LENGTH}`),
  ).toBe(true);
});

it('names the int64 bounds of id digit for digit', () => {
  expect(FIELD_PROSE.id).toBe(
    'A signed 64-bit integer, -9223372036854775808 to 9223372036854775807, accepted exactly.',
  );
});

it('describes each error status once, and declares headers only on those', () => {
  expect(Object.keys(STATUS_RESPONSES).map(Number)).toEqual(ERROR_STATUSES);
  const names = Object.values(STATUS_RESPONSES).map((response) => response.name);
  expect(new Set(names).size).toBe(names.length);
  for (const [name, header] of Object.entries(RESPONSE_HEADERS)) {
    expect(ERROR_STATUSES, name).toEqual(expect.arrayContaining([...header.statuses]));
  }
});

it("says a status's shared sentence of exactly the catalog's codes of the status", () => {
  for (const [status, { shared }] of Object.entries(STATUS_RESPONSES)) {
    if (!shared) continue;
    const catalog = ERROR_ENTRIES.filter((entry) => entry.status === Number(status));
    const names = catalog.map((entry) => entry.name);
    expect(
      [...shared.errors].sort(),
      `packages/schema/src/openapi/prose.ts: STATUS_RESPONSES[${status}].shared.summary was written for ${shared.errors.join(', ')}, but the catalog's ${status} codes are ${names.join(', ')}: make the sentence true of each of them (or drop it: each code's summary in error-catalog.ts then describes the response), then list them in its errors`,
    ).toEqual(names.sort());
  }
});
