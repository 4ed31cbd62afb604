import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { jsdocExamples, jsdocExamplesModule } from './jsdoc-examples.ts';

// The JSDoc examples are compiled by the package's typecheck through jsdoc-examples.check.ts;
// this keeps that file what src/ says now.

describe('jsdoc-examples.check.ts', () => {
  it('holds every @example of src/ as it is now (run `pnpm --filter @plant-store/client run consumer-types`)', () => {
    const committed = readFileSync(new URL('./jsdoc-examples.check.ts', import.meta.url), 'utf8');
    expect(committed).toBe(jsdocExamplesModule());
  });

  it('finds each example of a comment, up to its next tag, with the name it documents', () => {
    const source = [
      '/**',
      ' * Doubles.',
      ' *',
      ' * @example',
      ' * double(2); // 4',
      ' *',
      ' * @example',
      ' * const x = double(',
      ' *   3,',
      ' * );',
      ' * @param n a number',
      ' */',
      'export function double(n: number): number {',
      '  return 2 * n;',
      '}',
    ].join('\n');
    expect(jsdocExamples({ 'double.ts': source })).toEqual([
      { file: 'double.ts', of: 'double', code: 'double(2); // 4' },
      { file: 'double.ts', of: 'double', code: 'const x = double(\n  3,\n);' },
    ]);
    expect(jsdocExamplesModule({ 'double.ts': source })).toContain(
      "import { double } from '../../src/double.ts';",
    );
  });

  it('covers the public API: the error classes, the client and validateNewPlant', () => {
    const documented = new Set(jsdocExamples().map((example) => example.of));
    for (const name of [
      'createPlantStoreClient',
      'PlantStoreError',
      'PlantStoreNetworkError',
      'PlantStoreValidationError',
      'Pacer',
      'validateNewPlant',
    ]) {
      expect(documented, name).toContain(name);
    }
  });
});
