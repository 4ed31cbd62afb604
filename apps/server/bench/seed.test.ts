import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../src/store/sqlite/sqlite-store.ts';
import { seedId } from './ids.ts';
import { countSqliteRows, seedSqlite } from './seed.ts';

const folder = mkdtempSync(join(tmpdir(), 'plant-store-seed-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('seedSqlite', () => {
  it('writes a store file the store opens, holding the seeded plants', async () => {
    const file = join(folder, 'seeded.db');
    await seedSqlite(file, 5000);
    expect(countSqliteRows(file)).toBe(5000);
    const store = createSqliteStore({ filename: file });
    try {
      expect(await store.get(seedId(4999))).toEqual({
        id: seedId(4999),
        name: 'Seeded plant 4999',
      });
      expect(await store.create({ id: seedId(10), name: 'Seeded plant 10', tag: 'seeded' })).toBe(
        'replayed',
      );
      expect(store.settings().synchronous).toBe(2);
    } finally {
      await store.close();
    }
  });
});
