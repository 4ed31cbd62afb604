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
  }
  return { created: most, error: undefined };
}

const walBytes = (filename: string) => fs.statSync(`${filename}-wal`).size;

describe.skipIf(!CAN_MOUNT)(
  'SQLite on a small file system (tmpfs; needs root, skipped when not root)',
  () => {
    it('answers SQLITE_FULL as unavailable, leaves the data most of the disk (the WAL stays within one auto-checkpoint), and recovers', async () => {
      disk = mountSmallFilesystem(24 * MiB);
      const filename = path.join(disk.dir, 'plants.db');
      const opened = createSqliteStore({ filename });
      store = opened;
      const free = 12 * MiB;
      const filler = disk.fill(free);

      // One row is ~200 bytes of data but a 4 KiB WAL frame: the WAL, not the data, would fill
      // the disk unless it starts over (SQLite's auto-checkpoint every 1000 pages) and gives
      // its space back when the disk is full (truncated, and the commit tried once more).
      const full = await createUntilFailure(opened, 1n, 200_000);
      console.info(
        `full after ${full.created} creates: data ${fs.statSync(filename).size} B, WAL ${walBytes(filename)} B`,
      );
      expect(full.error).toBeInstanceOf(StoreUnavailableError);
      expect(String((full.error as Error).message)).toMatch(/disk is full/);
      const dataBytes = fs.statSync(filename).size;
      // At most SQLite's auto-checkpoint length (1000 pages) and one commit more.
      expect(walBytes(filename)).toBeLessThan(1100 * (4096 + 24));
      expect(dataBytes).toBeGreaterThan(free / 2);
      expect(opened.readiness()).toMatchObject({ ready: false, cause: { code: 'SQLITE_FULL' } });

      // Space comes back: creates work again, and still when the disk gets tight again.
      fs.rmSync(filler);
      const after = await createUntilFailure(opened, 1_000_000n, 200);
      expect(after).toEqual({ created: 200, error: undefined });
      expect(opened.readiness()).toEqual({ ready: true });
      disk.fill(free);
      const tightAgain = await createUntilFailure(opened, 2_000_000n, 200_000);
      expect(tightAgain.created).toBeGreaterThan(100);
      expect(await opened.create({ id: 1_000_199n, name: NAME })).toBe('replayed');
    });
  },
);
