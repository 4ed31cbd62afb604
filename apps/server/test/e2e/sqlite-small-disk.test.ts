import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/store/plant-store.ts';
import { createSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import {
  CAN_MOUNT,
  mountSmallFilesystem,
  type SmallFilesystem,
} from '../support/small-filesystem.ts';

const MiB = 1024 * 1024;
const NAME = 'x'.repeat(180);

let disk: SmallFilesystem | undefined;
let store: SqliteStore | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
  disk?.unmount();
  disk = undefined;
});

/** Creates one plant at a time (each its own commit, as a trickle of clients does) until one fails. */
async function createUntilFailure(target: SqliteStore, firstId: bigint, most: number) {
  for (let index = 0; index < most; index += 1) {
    try {
      await target.create({ id: firstId + BigInt(index), name: NAME });
    } catch (error) {
      return { created: index, error };
    }
    // Let the checkpoint worker run between commits, as it does between requests.
    if (index % 10 === 9) await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return { created: most, error: undefined };
}

const walBytes = (filename: string) => fs.statSync(`${filename}-wal`).size;

describe.skipIf(!CAN_MOUNT)(
  'SQLite on a small file system (tmpfs; needs root, skipped when not root)',
  () => {
    it('keeps background checkpoints after SQLITE_FULL and never lets the WAL take the room the data needs', async () => {
      disk = mountSmallFilesystem(4 * MiB);
      const filename = path.join(disk.dir, 'plants.db');
      const opened = createSqliteStore({
        filename,
        checkpoints: 'background',
        checkpointIntervalMs: 20,
      });
      store = opened;
      await new Promise((resolve) => setTimeout(resolve, 300)); // the worker is up
      const free = 1 * MiB;
      const filler = disk.fill(free);

      // One row is ~200 bytes of data but a 4 KiB WAL frame: the WAL, not the data, fills a
      // small disk unless it starts over (and gives its space back) in time.
      const full = await createUntilFailure(opened, 1n, 20_000);
      expect(full.error).toBeInstanceOf(StoreUnavailableError);
      expect(String((full.error as Error).message)).toMatch(/disk is full/);
      const dataBytes = fs.statSync(filename).size;
      expect(walBytes(filename)).toBeLessThan(free / 2);
      expect(dataBytes).toBeGreaterThan(free / 2);
      expect(opened.readiness()).toMatchObject({ ready: false, cause: { code: 'SQLITE_FULL' } });

      // Space comes back: creates work again and the checkpoints stay in the background.
      fs.rmSync(filler);
      const after = await createUntilFailure(opened, 1_000_000n, 200);
      expect(after).toEqual({ created: 200, error: undefined });
      expect(opened.readiness()).toEqual({ ready: true });
      expect(opened.settings().checkpoints).toBe('background');
      const restartsBefore = opened.checkpointStats()?.restarts ?? 0;
      // …and still bound the WAL when the disk gets tight again.
      disk.fill(free);
      const tightAgain = await createUntilFailure(opened, 2_000_000n, 20_000);
      expect(tightAgain.created).toBeGreaterThan(100);
      expect(opened.checkpointStats()).toMatchObject({ running: true });
      expect(opened.checkpointStats()?.restarts ?? 0).toBeGreaterThan(restartsBefore);
      const rows = await opened.get(1_000_199n);
      expect(rows).toEqual({ id: 1_000_199n, name: NAME });
    });
  },
);
