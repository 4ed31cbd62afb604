import { describe, expect, it } from 'vitest';
import { ERROR_CATALOG } from './error-catalog.ts';
import { ERROR_MESSAGES } from './error-messages.ts';
import { NewPlant, Plant, toPlant } from './plant.ts';
import {
  FIELD_DESCRIPTIONS,
  FIELD_LIST,
  fieldNames,
  PLANT_FIELDS,
  plantOf,
} from './plant-fields.ts';

/** A valid value of each field. */
const VALID = { string: 'a', integer: 0, boolean: true } as const;

// Every field of NewPlant but `id`, each set to a valid value: a plant with all of them.
const full = NewPlant.parse({
  id: 1,
  ...Object.fromEntries(
    FIELD_LIST.map((field) => [
      field.name,
      field.type === 'integer' ? field.minimum : VALID[field.type],
    ]),
  ),
});

describe('PLANT_FIELDS', () => {
  it("is NewPlant's and Plant's fields without id, in order", () => {
    expect(['id', ...PLANT_FIELDS]).toEqual(Object.keys(NewPlant.shape));
    expect(PLANT_FIELDS).toContain('name');
  });

  it('has a description for every field', () => {
    const missing = PLANT_FIELDS.filter((field) => !FIELD_DESCRIPTIONS[field]?.trim());
    expect(
      missing,
      'packages/schema/src/plant-fields.ts: give each of these fields its FIELD_DESCRIPTIONS entry',
    ).toEqual([]);
    expect(Object.keys(FIELD_DESCRIPTIONS)).toEqual(PLANT_FIELDS);
  });

  it('is what toPlant copies and Plant keeps', () => {
    expect(Object.keys(toPlant(full))).toEqual(PLANT_FIELDS);
    expect(Plant.parse(plantOf(full))).toEqual(plantOf(full));
  });
});

describe('plantOf', () => {
  it('keeps the values and leaves out NULL and absent fields', () => {
    expect(plantOf({ name: 'Fern', tag: null })).toEqual({ name: 'Fern' });
    expect(plantOf({ name: 'Fern' })).toEqual({ name: 'Fern' });
    expect(plantOf(full)).toEqual(toPlant(full));
  });
});

describe('fieldNames', () => {
  it('lists the fields as prose, and the messages that name fields use it', () => {
    expect(fieldNames('or').split(/, | or /)).toEqual(PLANT_FIELDS);
    expect(fieldNames('and', (name) => `<${name}>`).split(/, | and /)).toEqual(
      PLANT_FIELDS.map((name) => `<${name}>`),
    );
    expect(ERROR_MESSAGES.conflict(10n)).toBe(
      `A plant with id 10 already exists with a different ${fieldNames('or')}`,
    );
    expect(ERROR_CATALOG.conflict.meaning).toContain(`the same ${fieldNames('and')} is a safe`);
  });
});
