import { type NewPlant, PLANT_FIELDS } from '@plant-store/schema';
import { describe, expect, it } from 'vitest';
import { errorCode, fieldValues, outcomeAgainst, PLANT_COLUMNS } from './plant-store.ts';

describe('the plant columns', () => {
  it('are the id, then every field of the contract, in its order', () => {
    expect(PLANT_COLUMNS).toBe(['id', ...PLANT_FIELDS].join(', '));
    expect(PLANT_COLUMNS).toMatch(/^id, name, tag\b/);
  });

  it('hold a field left out as NULL', () => {
    const nulls = PLANT_FIELDS.map(() => null);
    expect(fieldValues({ id: 1n, name: 'Fern' })).toEqual(['Fern', ...nulls.slice(1)]);
    expect(fieldValues({ id: 1n, name: 'Fern', tag: 'indoor' }).slice(0, 2)).toEqual([
      'Fern',
      'indoor',
    ]);
  });
});

describe('outcomeAgainst', () => {
  const plant: NewPlant = { id: 1n, name: 'Fern' };
  it('is a replay when every field is the same, a missing tag equal to NULL', () => {
    expect(outcomeAgainst({ name: 'Fern', tag: null }, plant)).toBe('replayed');
    expect(outcomeAgainst({ name: 'Fern' }, plant)).toBe('replayed');
  });

  it('is a conflict when any field differs, a tag given where none was stored included', () => {
    expect(outcomeAgainst({ name: 'Ivy', tag: null }, plant)).toBe('conflict');
    expect(outcomeAgainst({ name: 'Fern', tag: 'indoor' }, plant)).toBe('conflict');
    expect(outcomeAgainst({ name: 'Fern', tag: null }, { id: 1n, name: 'Fern', tag: 'x' })).toBe(
      'conflict',
    );
  });
});

describe('errorCode', () => {
  const coded = (code: unknown) => Object.assign(new Error('x'), { code });

  it("is the error's own string code", () => {
    expect(errorCode(coded('SQLITE_BUSY'))).toBe('SQLITE_BUSY');
  });

  it('is found through causes and the first error of an AggregateError', () => {
    const wrapped = new Error('outer', { cause: new Error('middle', { cause: coded('57P01') }) });
    expect(errorCode(wrapped)).toBe('57P01');
    expect(errorCode(new AggregateError([coded('ECONNREFUSED'), coded('EHOSTUNREACH')]))).toBe(
      'ECONNREFUSED',
    );
  });

  it('is undefined for a value that is no error, a numeric code, or a cycle of causes', () => {
    expect(errorCode('SQLITE_BUSY')).toBeUndefined();
    expect(errorCode(coded(5))).toBeUndefined();
    const cycle = new Error('a');
    cycle.cause = cycle;
    expect(errorCode(cycle)).toBeUndefined();
  });
});
