import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { StartupError } from '../../config.ts';
import { DRIVER_PACKAGE } from './driver.ts';
import { openDatabase } from './open-database.ts';

const folder = mkdtempSync(join(tmpdir(), 'plant-open-database-'));
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

describe('openDatabase', () => {
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

  it('gives up with the one-line start-up error when the writer holds on past the busy timeout', async () => {
    const filename = join(folder, 'held.db');
    const writer = await writerHolding(filename, 60_000);
    try {
      const opening = () => openDatabase(filename, { busyTimeoutMs: 50 });
      expect(opening).toThrow(StartupError);
      expect(opening).toThrow(`Cannot open the SQLite database ${filename}: SQLITE_BUSY`);
    } finally {
      await writer.terminate();
    }
  });

  it('says so when the path is a directory, and which file to set', () => {
    expect(() => openDatabase(folder)).toThrow(
      new StartupError(
        `Cannot open the SQLite database ${folder}: it is a directory. Set DATABASE_URL to a file, e.g. ${join(folder, 'plants.db')}.`,
      ),
    );
  });

  it('refuses an in-memory database: the store is a file', () => {
    expect(() => openDatabase(':memory:')).toThrow(/needs a database file/);
  });
});
