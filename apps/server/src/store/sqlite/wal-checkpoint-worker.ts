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
  | { readonly type: 'resume'; readonly result: CheckpointResult };

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
 * again what commits added meanwhile (up to four more rounds, until that is under 1/32 of
 * `restartFrames`), then asks the store to pause its commits ('pause'), copies the few frames
 * left while nothing writes ('paused' → PASSIVE), and lets it go on ('resume'): the next
 * commit starts the WAL over.
 */
export function runCheckpointWorker(require: NodeJS.Require, data: CheckpointWorkerData): void {
  const { parentPort } = require('node:worker_threads') as typeof import('node:worker_threads');
  const Driver = require(data.driverPath) as typeof import('better-sqlite3');
  if (parentPort === null) throw new Error('The checkpoint worker must run in a worker thread');
  const port = parentPort;
  const db = new Driver(data.filename, { fileMustExist: true, timeout: data.busyTimeoutMs });
  db.pragma(`busy_timeout = ${data.busyTimeoutMs}`);
  db.pragma(`synchronous = ${data.synchronous}`);
  const checkpoint = (): CheckpointResult => {
    const rows = db.pragma('wal_checkpoint(PASSIVE)') as CheckpointResult[];
    const row = rows[0];
    if (row === undefined) throw new Error('PRAGMA wal_checkpoint returned no row');
    return row;
  };
  let waitingForPause = false;
  const timer = setInterval(() => {
    if (waitingForPause) return;
    let result = checkpoint();
    if (result.log < data.restartFrames) return;
    // Copy what commits added meanwhile until little is left (a few rounds at most), so the
    // pause below only has to wait for a short copy.
    for (let round = 0; round < 4; round += 1) {
      const next = checkpoint();
      const added = next.log - result.log;
      result = next;
      if (added <= data.restartFrames / 32) break;
    }
    waitingForPause = true;
    port.postMessage({ type: 'pause', result } satisfies FromCheckpointWorker);
  }, data.intervalMs);
  port.on('message', (message: ToCheckpointWorker) => {
    if (message.type === 'paused') {
      const result = checkpoint();
      waitingForPause = false;
      port.postMessage({ type: 'resume', result } satisfies FromCheckpointWorker);
    } else {
      clearInterval(timer);
      db.close();
      port.close();
    }
  });
}
