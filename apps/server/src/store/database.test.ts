import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseDatabase, StartupError } from '../config.ts';
import { openDatabaseHandle } from './database.ts';
import { MIGRATIONS, schemaVersion } from './sqlite/migrations.ts';

// The SQLite side of the process's one database handle; test/e2e/database.test.ts opens the
// PostgreSQL side against a real server.

const folder = mkdtempSync(join(tmpdir(), 'plant-store-database-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('openDatabaseHandle on SQLite', () => {
  it('opens the file migrated to the newest version, in WAL mode, and closes it', async () => {
    const filename = join(folder, 'plants.db');
    const handle = await openDatabaseHandle(parseDatabase(filename));
    if (handle.kind !== 'sqlite') throw new Error(`opened as ${handle.kind}`);
    try {
      expect(handle.filename).toBe(filename);
      expect(schemaVersion(handle.db)).toBe(MIGRATIONS.length);
      expect(handle.db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      await handle.close();
    }
    expect(handle.db.open).toBe(false);
  });

  it.each([
    ['full', 2],
    ['normal', 1],
  ] as const)('commits with synchronous as DURABILITY=%s asks', async (durability, synchronous) => {
    const handle = await openDatabaseHandle(parseDatabase(join(folder, `${durability}.db`)), {
      durability,
    });
    if (handle.kind !== 'sqlite') throw new Error(`opened as ${handle.kind}`);
    try {
      expect(handle.db.pragma('synchronous', { simple: true })).toBe(synchronous);
    } finally {
      await handle.close();
    }
  });

  it('refuses a file that is not a database in one StartupError line naming it', async () => {
    const filename = join(folder, 'not-a-database.db');
    writeFileSync(filename, 'plain text, not SQLite '.repeat(100));
    const opening = openDatabaseHandle(parseDatabase(filename));
    await expect(opening).rejects.toBeInstanceOf(StartupError);
    await expect(opening).rejects.toThrow(
      new RegExp(`^Cannot open the SQLite database ${filename}: SQLITE_NOTADB`),
    );
  });
});
