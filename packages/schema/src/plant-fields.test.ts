import { describe, expect, it } from 'vitest';
import { NewPlant, Plant, toPlant } from './plant.ts';
import { PLANT_FIELDS, plantOf } from './plant-fields.ts';

// Every field of NewPlant but `id`, each set to a valid string: a plant with all of them.
const full = NewPlant.parse({
  id: 1,
  ...Object.fromEntries(PLANT_FIELDS.map((field) => [field, `${field} value`])),
});

describe('PLANT_FIELDS', () => {
  it("is NewPlant's fields without id, in order", () => {
    expect(['id', ...PLANT_FIELDS]).toEqual(Object.keys(NewPlant.shape));
    expect(PLANT_FIELDS).toContain('name');
  });

  it('names only string fields (the stores keep each in a TEXT column)', () => {
    const notText = PLANT_FIELDS.filter((field) => typeof full[field] !== 'string');
    expect(notText, 'a field that is not a string needs its own column type in the stores').toEqual(
      [],
    );
  });

  it('is what toPlant copies and Plant keeps', () => {
    const dropped = PLANT_FIELDS.filter((field) => !(field in toPlant(full)));
    expect(dropped, 'toPlant (packages/schema/src/plant.ts) must copy these fields').toEqual([]);
    expect(Plant.parse(plantOf(full))).toEqual(plantOf(full));
  });
});

describe('plantOf', () => {
  it('keeps the strings and leaves out NULL and absent fields', () => {
    expect(plantOf({ name: 'Fern', tag: null })).toEqual({ name: 'Fern' });
    expect(plantOf({ name: 'Fern' })).toEqual({ name: 'Fern' });
    expect(plantOf(full)).toEqual(toPlant(full));
  });
});
