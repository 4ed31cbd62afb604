import { expect, it } from 'vitest';
import { JsonTooWideError, parseJson } from './json.ts';
import { NEW_PLANT_JSON_LIMITS } from './new-plant-json-limits.ts';
import { NewPlant } from './plant.ts';
import { FIELD_LIST } from './plant-fields.ts';

const read = (text: string) => parseJson(text, { flatRecord: NEW_PLANT_JSON_LIMITS });
const strings = FIELD_LIST.filter((field) => field.type === 'string');

it('reads a NewPlant whose every key is sent twice', () => {
  const plant = { id: 1, ...Object.fromEntries(strings.map((field) => [field.name, 'x'])) };
  const members = Object.entries(plant).map(([key, value]) => `"${key}": ${JSON.stringify(value)}`);
  expect(read(`{${[...members, ...members].join(', ')}}`)).toEqual(plant);
});

it('refuses the 17th member while a NewPlant has at most 8 keys', () => {
  expect(FIELD_LIST.length + 1).toBeLessThanOrEqual(8);
  const members = Array.from({ length: 17 }, (_, i) => `"k${i}": 0`);
  expect(read(`{${members.slice(0, 16).join(',')}}`)).toHaveProperty('k15', 0);
  expect(() => read(`{${members.join(',')}}`)).toThrow(JsonTooWideError);
});

it.each(strings)(
  'keeps a longest $name whole, escaped or not, and a longer one too long',
  (field) => {
    for (const char of ['x', '🌿']) {
      const longest = char.repeat(field.maxLength);
      const escaped = JSON.stringify(longest).replace(/🌿/g, '\\uD83C\\uDF3F');
      expect(read(`{"${field.name}": ${escaped}}`)).toEqual({ [field.name]: longest });
    }
    const cut = read(
      `{"id": 1, "${field.name}": "${'🌿'.repeat(NEW_PLANT_JSON_LIMITS.maxStringLength)}"}`,
    );
    expect(NewPlant.safeParse(cut).error?.issues.map((issue) => issue.message)).toContain(
      `must be at most ${field.maxLength} characters`,
    );
  },
);
