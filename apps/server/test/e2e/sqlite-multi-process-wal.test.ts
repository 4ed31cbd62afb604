import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { integrityCheck } from '../support/integrity-check.ts';
import { readPlantRows } from '../support/read-plant-rows.ts';

// The workers of a cluster (WEB_CONCURRENCY > 1) on one SQLite file: two processes commit back
// to back, each with its own background checkpointer. Each checkpointer can pause only its own
// process's commits, yet the WAL must still start over (all of them watch the same WAL, so they
// pause together); with a single checkpointer the other process's commits kept the WAL growing
// to SQLite's inline ceiling (4× the restart length) in the same setup. Every create either
// process saw committed must be in the file.

const WRITER = fileURLToPath(new URL('../support/wal-sharing-writer.ts', import.meta.url));
const folder = mkdtempSync(join(tmpdir(), 'plant-multi-process-wal-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const RESTART_FRAMES = 500;
const PROCESSES = 2;

function runWriter(file: string, index: number): Promise<{ creates: number; restarts: number }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', WRITER, file, String(index), String(PROCESSES), '4'],
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
      const match = /^done (\d+) (\d+)$/m.exec(stdout);
      if (code !== 0 || match === null)
        reject(new Error(`writer ${index} failed (${code}): ${stderr}`));
      else resolve({ creates: Number(match[1]), restarts: Number(match[2]) });
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
  for (const writer of writers) expect(writer.creates).toBeGreaterThan(0);
  expect(writers.reduce((sum, writer) => sum + writer.restarts, 0)).toBeGreaterThan(0);
  // The single-process bound of the checkpointer's own test: 2.5× the restart length.
  expect(largestWal / frameBytes).toBeLessThan(RESTART_FRAMES * 2.5);
  const rows = readPlantRows(file);
  expect(rows).toHaveLength(writers.reduce((sum, writer) => sum + writer.creates, 0));
  expect(integrityCheck(file)).toEqual([{ integrity_check: 'ok' }]);
});
