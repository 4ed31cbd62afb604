import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeTokenStore } from '../../test/support/token-store-contract.ts';
import { createSqliteTokenStore } from '../../test/support/token-stores.ts';
import { openSqlite } from '../store/sqlite/driver.ts';
import { createSqliteStore } from '../store/sqlite/sqlite-store.ts';
import { digestToken } from './token-registry.ts';

describeTokenStore('SQLite', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'plant-store-tokens-'));
  const store = createSqliteTokenStore({ filename: join(folder, 'plants.db') });
  return {
    store,
    async dispose() {
      await store.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
});

describe('SQLite token store', () => {
  it('shares the plant store file and keeps only digests in it', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'plant-store-tokens-'));
    const filename = join(folder, 'nested', 'plants.db');
    try {
      // Before the server ever ran: the file is created and migrated.
      const tokens = createSqliteTokenStore({ filename });
      await tokens.insert({
        name: 'acme',
        digest: digestToken('the-secret-token'),
        createdAt: new Date(),
        expiresAt: null,
      });
      const plants = createSqliteStore({ filename });
      expect(await plants.create({ id: 1n, name: 'Fern' })).toBe('created');
      expect((await tokens.list()).map((t) => t.name)).toEqual(['acme']);
      await plants.close();
      await tokens.close();

      const raw = openSqlite(filename, { readonly: true });
      const dump = JSON.stringify(raw.prepare('SELECT * FROM tokens').all());
      raw.close();
      expect(dump).toContain(digestToken('the-secret-token'));
      expect(dump).not.toContain('the-secret-token');
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
