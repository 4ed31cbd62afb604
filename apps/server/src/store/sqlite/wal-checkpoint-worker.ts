/** What the checkpoint worker is started with (its `workerData`). */
export interface CheckpointWorkerData {
  /** The better-sqlite3 module to load (`SQLITE_DRIVER_PATH`). */
  readonly driverPath: string;
  readonly filename: string;
  /** PRAGMA synchronous of the checkpointing connection (the store's). */
  readonly synchronous: number;
  readonly busyTimeoutMs: number;
  /** How often the worker copies new WAL frames into the database file. */
  readonly intervalMs: number;
  /** WAL length (frames) at which the worker asks for a pause so the WAL can start over. */
  readonly restartFrames: number;
}

/** What `PRAGMA wal_checkpoint` returns: frames in the WAL, and how many are in the database file. */
export interface CheckpointResult {
  readonly busy: number;
  readonly log: number;
  readonly checkpointed: number;
}

/** Messages from the worker to the store. */
export type FromCheckpointWorker =
  | { readonly type: 'pause'; readonly result: CheckpointResult }
  | { readonly type: 'resume'; readonly result: CheckpointResult }
  | { readonly type: 'failed'; readonly message: string; readonly code: string | undefined }
  | { readonly type: 'recovered' };

/** Messages from the store to the worker. */
export type ToCheckpointWorker = { readonly type: 'paused' } | { readonly type: 'close' };

/**
 * The body of the checkpoint worker thread. It is started from its source text
 * (`Worker(…, { eval: true })`), so it uses nothing but its arguments: no imports, no
 * outer names.
 *
 * On its own connection to the store's file, every `intervalMs` it copies the WAL's new
 * frames into the database file (`PRAGMA wal_checkpoint(PASSIVE)`, which never blocks the
 * writer), so the writer's event loop does no checkpoint I/O. SQLite starts the WAL over only
 * when a write begins with every frame copied, which a checkpointer racing a steady stream of
 * commits may never see; so once the WAL holds `restartFrames` frames, the worker copies
 * again what commits added meanwhile (up to four more rounds, until that is under 1/256 of
 * `restartFrames`), then asks the store to pause its commits ('pause'), copies the few frames
 * left while nothing writes ('paused' → PASSIVE), and lets it go on ('resume'): the next
 * commit starts the WAL over.
 *
 * When the file system has less room left than the WAL takes, the WAL starts over at once
 * and is truncated to nothing (`wal_checkpoint(TRUNCATE)` in the pause), so on a small disk
 * the WAL never takes the room the data needs.
 *
 * A checkpoint that fails (the disk is full, an I/O error) is reported once ('failed') and
 * tried again at the next interval; the first that works again is reported ('recovered').
 * The worker keeps running, so checkpoints stay off the event loop once the fault clears.
 */
export function runCheckpointWorker(require: NodeJS.Require, data: CheckpointWorkerData): void {
  const { parentPort } = require('node:worker_threads') as typeof import('node:worker_threads');
  const Driver = require(data.driverPath) as typeof import('better-sqlite3');
  if (parentPort === null) throw new Error('The checkpoint worker must run in a worker thread');
  const port = parentPort;
  const db = new Driver(data.filename, { fileMustExist: true, timeout: data.busyTimeoutMs });
  db.pragma(`busy_timeout = ${data.busyTimeoutMs}`);
  db.pragma(`synchronous = ${data.synchronous}`);
  const fs = require('node:fs') as typeof import('node:fs');
  const path = require('node:path') as typeof import('node:path');
  const directory = path.dirname(data.filename);
  const frameBytes = Number(db.pragma('page_size', { simple: true })) + 24;
  /**
   * True when the file system has less room left than the WAL already takes: the WAL then
   * starts over (and is truncated) now rather than at `restartFrames`, so it never takes
   * the space the data needs.
   */
  const spaceIsShort = (frames: number): boolean => {
    try {
      const { bavail, bsize } = fs.statfsSync(directory);
      return bavail * bsize < frames * frameBytes;
    } catch {
      return false;
    }
  };
  const checkpoint = (mode: 'PASSIVE' | 'TRUNCATE' = 'PASSIVE'): CheckpointResult => {
    const rows = db.pragma(`wal_checkpoint(${mode})`) as CheckpointResult[];
    const row = rows[0];
    if (row === undefined) throw new Error('PRAGMA wal_checkpoint returned no row');
    return row;
  };
  let failing = false;
  /** One checkpoint; undefined when it failed (reported once per streak of failures). */
  const attempt = (mode?: 'PASSIVE' | 'TRUNCATE'): CheckpointResult | undefined => {
    try {
      const result = checkpoint(mode);
      if (failing) {
        failing = false;
        port.postMessage({ type: 'recovered' } satisfies FromCheckpointWorker);
      }
      return result;
    } catch (error) {
      if (!failing) {
        failing = true;
        const { message, code } = error as { message?: unknown; code?: unknown };
        port.postMessage({
          type: 'failed',
          message: String(message ?? error),
          code: typeof code === 'string' ? code : undefined,
        } satisfies FromCheckpointWorker);
      }
      return undefined;
    }
  };
  let waitingForPause = false;
  let truncate = false;
  const timer = setInterval(() => {
    if (waitingForPause) return;
    let result = attempt();
    if (result === undefined || result.log === 0) return;
    truncate = spaceIsShort(result.log);
    if (result.log < data.restartFrames && !truncate) return;
    // Copy what commits added meanwhile until little is left (a few rounds at most), so the
    // pause below only has to wait for a short copy.
    for (let round = 0; round < 4; round += 1) {
      const next = attempt();
      if (next === undefined) return;
      const added = next.log - result.log;
      result = next;
      if (added <= data.restartFrames / 256) break;
    }
    waitingForPause = true;
    port.postMessage({ type: 'pause', result } satisfies FromCheckpointWorker);
  }, data.intervalMs);
  port.on('message', (message: ToCheckpointWorker) => {
    if (message.type === 'paused') {
      // A failed copy still lets commits go on: the WAL did not start over this time.
      const result = attempt(truncate ? 'TRUNCATE' : 'PASSIVE') ?? {
        busy: 1,
        log: -1,
        checkpointed: 0,
      };
      waitingForPause = false;
      port.postMessage({ type: 'resume', result } satisfies FromCheckpointWorker);
    } else {
      clearInterval(timer);
      db.close();
      port.close();
    }
  });
}
