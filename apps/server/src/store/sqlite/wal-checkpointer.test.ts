import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempSqliteStores } from '../../../test/support/temp-sqlite-stores.ts';
import { openSqlite, SQLITE_DRIVER_PATH } from './driver.ts';
import type { SqliteStore, SqliteStoreOptions } from './sqlite-store.ts';
import { WalCheckpointer } from './wal-checkpointer.ts';

/** Bytes of one WAL frame with 4 KiB pages (24-byte frame header), and of the WAL header. */
const FRAME_BYTES = 24 + 4096;
const WAL_HEADER_BYTES = 32;

const temp = tempSqliteStores('plant-checkpoint-');
const backgroundStore = (options: Partial<SqliteStoreOptions> = {}): SqliteStore =>
  temp.open({ checkpoints: 'background', ...options });

let nextId = 1n;
/** `count` creates at once (one group commit), ids scattered so each dirties its own pages. */
function createMany(store: SqliteStore, count: number): Promise<unknown> {
  return Promise.all(
    Array.from({ length: count }, () => {
      nextId += 1n;
      return store.create({ id: (nextId * 0x9e3779b97f4a7n) % 2n ** 50n, name: `plant ${nextId}` });
    }),
  );
}

/** Frames the WAL file has room for: it never shrinks, so this is the most it ever held. */
function walFileFrames(): number {
  return Math.ceil((fs.statSync(`${temp.filename}-wal`).size - WAL_HEADER_BYTES) / FRAME_BYTES);
}

/** Rows in the database file alone, without its WAL: what checkpoints have copied there. */
function rowsInDatabaseFile(): number {
  const copy = path.join(temp.dir, 'copy.db');
  fs.copyFileSync(temp.filename, copy);
  const db = openSqlite(copy, { readonly: true });
  try {
    // Before the first checkpoint, even the table is only in the WAL.
    const table = db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'plants'").get();
    if (table === undefined) return 0;
    return Number((db.prepare('SELECT count(*) AS n FROM plants').get() as { n: number }).n);
  } finally {
    db.close();
  }
}

describe('background WAL checkpoints (SqliteStore checkpoints: background)', () => {
  it('copies committed plants into the database file off the committing thread', async () => {
    const store = backgroundStore({ checkpointIntervalMs: 10 });
    expect(store.settings()).toMatchObject({
      checkpoints: 'background',
      walAutocheckpoint: 64_000,
    });
    await createMany(store, 300);
    // 300 plants are far below any inline checkpoint (64 000 pages): only the worker copies them.
    await expect.poll(rowsInDatabaseFile, { timeout: 5_000 }).toBe(300);
  });

  it('keeps the WAL bounded under back-to-back commits: it starts over at walRestartFrames', async () => {
    const restartFrames = 2000;
    const pauses: { seconds: number; walRestarted: boolean }[] = [];
    const store = backgroundStore({
      walRestartFrames: restartFrames,
      checkpointIntervalMs: 10,
      observer: {
        onCommitPause: (seconds, walRestarted) => pauses.push({ seconds, walRestarted }),
      },
    });
    let commits = 0;
    // Back to back until the WAL has started over 3 times (tens of thousands of frames).
    while ((store.checkpointStats()?.restarts ?? 0) < 3 && commits < 20_000) {
      await createMany(store, 50);
      commits += 1;
    }
    const stats = store.checkpointStats();
    expect(stats?.running).toBe(true);
    expect(stats?.restarts).toBeGreaterThanOrEqual(3);
    // The observer (metrics) hears of every pause, and of the restarts among them.
    expect(pauses.filter((pause) => pause.walRestarted)).toHaveLength(stats?.restarts ?? -1);
    expect(pauses.every((pause) => pause.seconds > 0 && pause.seconds < 5)).toBe(true);
    // Over restartFrames by what commits add while the worker copies (1.4–1.7× here), never near
    // the inline ceiling (4 × restartFrames) that a worker losing the race would run into.
    expect(walFileFrames()).toBeLessThan(2.5 * restartFrames);
    expect(store.stats()).toEqual({ commits, creates: commits * 50 });
  });

  it('closes the worker before the store, so the last close checkpoints and removes the WAL', async () => {
    const store = backgroundStore();
    await createMany(store, 100);
    await store.close();
    expect(fs.existsSync(`${temp.filename}-wal`)).toBe(false);
    expect(rowsInDatabaseFile()).toBe(100);
  });

  it('commits what was queued while a close stopped the worker', async () => {
    const store = backgroundStore();
    const pending = createMany(store, 20);
    await store.close();
    await pending;
    expect(rowsInDatabaseFile()).toBe(20);
  });
});

describe('WalCheckpointer', () => {
  it('reports a worker that cannot start, and never pauses commits for it', async () => {
    let pauses = 0;
    const failure = new Promise<Error>((resolve) => {
      new WalCheckpointer({
        driverPath: SQLITE_DRIVER_PATH,
        filename: path.join(temp.dir, 'missing', 'plants.db'),
        synchronous: 2,
        busyTimeoutMs: 100,
        pauseCommits: async () => {
          pauses += 1;
        },
        resumeCommits: () => {},
        onFailure: resolve,
      });
    });
    expect((await failure).message).toMatch(/directory does not exist|unable to open/);
    expect(pauses).toBe(0);
  });

  it('rejects invalid options', () => {
    const options = {
      driverPath: SQLITE_DRIVER_PATH,
      filename: temp.filename,
      synchronous: 2,
      busyTimeoutMs: 100,
      pauseCommits: async () => {},
      resumeCommits: () => {},
      onFailure: () => {},
    };
    expect(() => new WalCheckpointer({ ...options, intervalMs: 0 })).toThrow(/intervalMs/);
    expect(() => new WalCheckpointer({ ...options, restartFrames: 1.5 })).toThrow(/restartFrames/);
  });
});
