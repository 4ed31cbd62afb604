import { expect, it } from 'vitest';
import { ERROR_STATUSES } from '../error-catalog.ts';
import { NAME_MAX_LENGTH, TAG_MAX_LENGTH } from '../plant-fields.ts';
import { FIELD_PLACEHOLDERS, FIELD_PROSE, RESPONSE_HEADERS, STATUS_RESPONSES } from './prose.ts';

it("fills the long description's field placeholders from the field list", () => {
  expect(FIELD_PLACEHOLDERS).toEqual({
    'fields:and': 'name and tag',
    'fields:or': 'name or tag',
    OPTIONAL_FIELDS: '`tag`',
    STRING_FIELDS: '`name` or `tag`',
    STRING_MAX_LENGTHS: `${NAME_MAX_LENGTH} / ${TAG_MAX_LENGTH}`,
    STRING_LIMITS: `\`name\`: 1 to ${NAME_MAX_LENGTH} characters; \`tag\`: 1 to ${TAG_MAX_LENGTH} characters`,
    OTHER_LIMITS: '',
  });
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
