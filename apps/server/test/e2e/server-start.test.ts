import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { startServer } from '../../src/server.ts';
import { openHandlesOf } from '../support/open-handles.ts';
import { silentLogger } from '../support/silent-logger.ts';

// A server that cannot listen releases what it opened for the start: this process's open file
// descriptors (Linux /proc) show whether the SQLite file is still held. src/server.test.ts sees
// the same for a start that fails before listening.

const folder = mkdtempSync(join(tmpdir(), 'plant-store-start-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function configFor(file: string, port: number) {
  return loadConfig({
    PORT: String(port),
    DATABASE_URL: file,
    PLANT_STORE_TOKENS: 'start-test-token-0123456789abcdef',
  });
}

describe('startServer', () => {
  it('holds the database file while it runs (the check below can see it)', async () => {
    const file = join(folder, 'running.db');
    const running = await startServer(configFor(file, 0), silentLogger());
    try {
      expect(openHandlesOf(file).length).toBeGreaterThan(0);
    } finally {
      await running.close();
    }
    expect(openHandlesOf(file)).toEqual([]);
  });

  it('closes the stores it opened when it cannot listen (the port is taken)', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    const file = join(folder, 'port-taken.db');
    try {
      await expect(startServer(configFor(file, port), silentLogger())).rejects.toThrow(
        /EADDRINUSE/,
      );
      expect(openHandlesOf(file)).toEqual([]);
    } finally {
      taken.close();
    }
  });
});
