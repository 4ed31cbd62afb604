import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { integrityCheck } from '../support/integrity-check.ts';
import { readPlantRows } from '../support/read-plant-rows.ts';

// Two ordinary processes on one SQLite file (as two instances sharing it are) commit back to
// back. SQLite's own auto-checkpoint (every 1000 WAL pages, in whichever process commits) must
// keep the shared WAL bounded, and every create either process saw committed must be in the
// file.

const WRITER = fileURLToPath(new URL('../support/wal-sharing-writer.ts', import.meta.url));
const folder = mkdtempSync(join(tmpdir(), 'plant-multi-process-wal-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** SQLite's default PRAGMA wal_autocheckpoint, in pages. */
const AUTOCHECKPOINT_PAGES = 1000;
const PROCESSES = 2;
/** Creates per process: together enough to go round the WAL about three times. */
const CREATES = 8 * AUTOCHECKPOINT_PAGES;

function runWriter(file: string, index: number): Promise<number> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', WRITER, file, String(index), String(PROCESSES), String(CREATES)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => {
      const match = /^done (\d+)$/m.exec(stdout);
      if (code !== 0 || match === null)
        reject(new Error(`writer ${index} failed (${code}): ${stderr}`));
      else resolve(Number(match[1]));
    });
  });
}

it('keeps the shared WAL bounded and every commit of every process', async () => {
  const file = join(folder, 'plants.db');
  await createSqliteStore({ filename: file }).close(); // created and migrated once
  const frameBytes = 4096 + 24;
  let largestWal = 0;
  const sampler = setInterval(() => {
    try {
      largestWal = Math.max(largestWal, statSync(`${file}-wal`).size);
    } catch {
      // No WAL at this moment.
    }
  }, 10);
  const writers = await Promise.all(
    Array.from({ length: PROCESSES }, (_, index) => runWriter(file, index)),
  );
  clearInterval(sampler);
  expect(writers).toEqual(Array(PROCESSES).fill(CREATES));
  console.info(`largest WAL ${Math.round(largestWal / frameBytes)} frames`);
  // The WAL reached the auto-checkpoint's size (checkpoints ran while both wrote), yet never
  // grew far past it.
  expect(largestWal / frameBytes).toBeGreaterThanOrEqual(AUTOCHECKPOINT_PAGES);
  expect(largestWal / frameBytes).toBeLessThan(AUTOCHECKPOINT_PAGES * 1.5);
  expect(readPlantRows(file)).toHaveLength(PROCESSES * CREATES);
  expect(integrityCheck(file)).toEqual([{ integrity_check: 'ok' }]);
});
