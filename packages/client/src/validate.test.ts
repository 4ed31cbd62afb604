import { contract, NewPlant } from '@plant-store/schema';
import { describe, expect, it } from 'vitest';
import { validateNewPlant } from './validate.ts';

describe('validateNewPlant', () => {
  it('is the schema the createPlant route sends', () => {
    expect(contract.createPlant.body).toBe(NewPlant);
  });

  it('accepts a number or bigint id and yields a bigint', () => {
    expect(validateNewPlant({ id: 10, name: 'Monstera', tag: 'indoor' })).toEqual({
      ok: true,
      value: { id: 10n, name: 'Monstera', tag: 'indoor' },
    });
    expect(validateNewPlant({ id: 2n ** 63n - 1n, name: 'Fern' })).toEqual({
      ok: true,
      value: { id: 9223372036854775807n, name: 'Fern' },
    });
  });

  it('refuses with the formatIssues message, one problem per field', () => {
    expect(validateNewPlant({ id: 1, name: 'Fern', wheels: 4 })).toEqual({
      ok: false,
      message: 'wheels: unknown property',
    });
    expect(validateNewPlant({ id: 1, name: '' })).toEqual({
      ok: false,
      message: 'name: must not be empty',
    });
    const verdict = validateNewPlant({ id: 2 ** 53, tag: null });
    expect(verdict.ok).toBe(false);
    expect(!verdict.ok && verdict.message.split('; ').map((line) => line.split(':')[0])).toEqual([
      'id',
      'name',
      'tag',
    ]);
  });

  it('refuses what is not an object', () => {
    for (const input of [null, [], 'x', 1, undefined]) {
      expect(validateNewPlant(input).ok).toBe(false);
    }
  });
});
