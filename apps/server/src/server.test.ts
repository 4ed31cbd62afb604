import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openHandlesOf } from '../test/support/open-handles.ts';
import { silentLogger } from '../test/support/silent-logger.ts';
import { loadConfig, NO_CREDENTIAL_MESSAGE } from './config.ts';
import { startServer } from './server.ts';
import { openDatabase } from './store/sqlite/open-database.ts';

// startServer without a listener: what it opened is closed when a step before listening fails.
// test/e2e/server-start.test.ts sees the same for a port that is taken; the app it serves is
// tested in app.test.ts.

describe('startServer that cannot start', () => {
  it('closes the stores it opened when it refuses to start (no credential it could accept)', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'plant-store-start-'));
    try {
      const file = join(folder, 'no-credential.db');
      openDatabase(file).close(); // a database that exists but holds no managed token
      const config = loadConfig({ DATABASE_URL: file });
      await expect(startServer(config, silentLogger())).rejects.toThrow(NO_CREDENTIAL_MESSAGE);
      expect(openHandlesOf(file)).toEqual([]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
