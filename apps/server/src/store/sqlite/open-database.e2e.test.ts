import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { DRIVER_PACKAGE } from './driver.ts';
import { openDatabase } from './open-database.ts';

// openDatabase waiting, on the real clock, for another connection's write lock (the e2e tier:
// open-database.test.ts has the cases that need no wait).

const folder = mkdtempSync(join(tmpdir(), 'plant-open-database-e2e-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/**
 * Another connection, on its own thread (it must go on while this thread waits), writing to a
 * new file in rollback-journal mode: it holds the write lock until `holdMs` have passed, as a
 * second process creating the same database does.
 */
async function writerHolding(filename: string, holdMs: number): Promise<Worker> {
  const driver = createRequire(import.meta.url).resolve(DRIVER_PACKAGE);
  const worker = new Worker(
    `
    const { parentPort, workerData } = require('node:worker_threads');
    const db = new (require(workerData.driver))(workerData.filename);
    db.exec('BEGIN IMMEDIATE; CREATE TABLE other (x);');
    parentPort.postMessage('holding');
    setTimeout(() => { db.exec('COMMIT'); db.close(); }, workerData.holdMs);
    `,
    { eval: true, workerData: { driver, filename, holdMs } },
  );
  await new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return worker;
}

describe('openDatabase beside another writer', () => {
  it('switches a new file to WAL once another connection that is writing it lets go', async () => {
    // SQLite fails this switch with SQLITE_BUSY at once, whatever the busy timeout says.
    const filename = join(folder, 'shared.db');
    const writer = await writerHolding(filename, 100);
    try {
      const db = openDatabase(filename);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('synchronous', { simple: true })).toBe(2);
      const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").pluck();
      expect(tables.all()).toEqual(expect.arrayContaining(['other', 'plants', 'tokens']));
      db.close();
    } finally {
      await writer.terminate();
    }
  });
});
