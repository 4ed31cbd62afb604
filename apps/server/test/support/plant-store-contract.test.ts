import { FIELD_LIST } from '@plant-store/schema';
import { describe, expect, it } from 'vitest';
import { missingColumns } from './plant-store-contract.ts';

describe('missingColumns (the store contract: a column for every field)', () => {
  it('finds nothing missing when every field has its column', () => {
    expect(missingColumns(['id', ...FIELD_LIST.map((field) => field.name), 'created_at'])).toEqual(
      [],
    );
  });

  it("names both migrations files and each store's column type of the field", () => {
    expect(
      missingColumns(['id', 'name'], [{ name: 'height', type: 'integer', required: false }]),
    ).toEqual([
      'the field height has no column: append a migration (never edit a released one) to apps/server/src/store/sqlite/migrations.ts: ALTER TABLE plants ADD COLUMN height INTEGER; and to apps/server/src/store/postgres/migrations.ts: ALTER TABLE plants ADD COLUMN height BIGINT;',
    ]);
    expect(missingColumns(['id'], [{ name: 'name', type: 'string', required: true }])[0]).toContain(
      'sqlite/migrations.ts: ALTER TABLE plants ADD COLUMN name TEXT NOT NULL;',
    );
    expect(missingColumns([], [{ name: 'indoor', type: 'boolean', required: false }])[0]).toContain(
      'postgres/migrations.ts: ALTER TABLE plants ADD COLUMN indoor BOOLEAN;',
    );
  });
});
