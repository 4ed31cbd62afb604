import { type BigIntStats, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { NewPlant } from '@plant-store/schema';
import type Database from 'better-sqlite3';
import { GroupCommitQueue, type GroupCommitStats, type ItemResult } from '../group-commit.ts';
import { nonNegativeInteger, positiveInteger } from '../integer-option.ts';
import { observeCommit } from '../observe-commit.ts';
import {
  type CreateOutcome,
  type Durability,
  type PlantRow,
  type PlantStore,
  type StoreObserver,
  StoreUnavailableError,
  storedPlant,
} from '../plant-store.ts';
import {
  type NotReadyCause,
  type Readiness,
  type ReadinessTimers,
  WriteReadiness,
} from '../write-readiness.ts';
import { openSqlite, SQLITE_DRIVER_PATH, SqliteError } from './driver.ts';
import { migrate, schemaVersion } from './migrations.ts';
import { WalCheckpointer, type WalCheckpointerStats } from './wal-checkpointer.ts';

/** Options of `createSqliteStore`. */
export interface SqliteStoreOptions {
  /** Path of the database file; its directory is created when missing. */
  readonly filename: string;
  /** Default `full`. */
  readonly durability?: Durability;
  /** How long a statement waits for another connection's lock before failing; default 5000. */
  readonly busyTimeoutMs?: number;
  /** Most creates committed in one transaction; default 1000. */
  readonly maxBatchSize?: number;
  /** Told about every group commit (for metrics). */
  readonly observer?: StoreObserver;
  /**
   * Who copies the WAL into the database file: `inline` (default), SQLite itself inside the
   * commit that fills the WAL to 1000 pages; `background`, a worker thread with its own
   * connection (`WalCheckpointer`), so commits on the event loop do no checkpoint I/O.
   */
  readonly checkpoints?: 'inline' | 'background';
  /** `background` only: how often new WAL frames are copied; default 1000 ms. */
  readonly checkpointIntervalMs?: number;
  /** `background` only: WAL frames at which commits pause briefly so the WAL starts over; default 16 000 (64 MiB of 4 KiB pages). */
  readonly walRestartFrames?: number;
  /** `background` only: told when the worker fails; checkpoints are inline from then on. */
  readonly onCheckpointFailure?: (error: Error) => void;
  /** `background` only: told when a checkpoint fails (once per streak); the worker retries. */
  readonly onCheckpointError?: (error: Error) => void;
  /** How often a cheap write checks that the store can commit; default 2000 ms. */
  readonly probeIntervalMs?: number;
  /** Told once per readiness transition (see `readiness`). */
  readonly onReadinessChange?: (readiness: Readiness, previous: Readiness) => void;
  /** The timers of the readiness probe (fakes in tests); the global ones by default. */
  readonly timers?: ReadinessTimers;
}

/** The connection settings as SQLite reports them (read back, not remembered). */
export interface SqliteSettings {
  readonly journalMode: string;
  /** 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA. */
  readonly synchronous: number;
  readonly busyTimeoutMs: number;
  readonly schemaVersion: number;
  /** WAL pages after which a commit checkpoints inline (a ceiling only, when in the background). */
  readonly walAutocheckpoint: number;
  /** Who checkpoints now: `background` while the worker runs, else `inline`. */
  readonly checkpoints: 'inline' | 'background';
}

/** Counters of the group-commit path: `commits` write transactions, `creates` settled creates. */
export type SqliteStoreStats = GroupCommitStats;

const SYNCHRONOUS_LEVEL: Record<Durability, number> = { normal: 1, full: 2 };
const DEFAULT_BUSY_TIMEOUT_MS = 5000;
const DEFAULT_MAX_BATCH_SIZE = 1000;
/** SQLite's own default of PRAGMA wal_autocheckpoint. */
const INLINE_AUTOCHECKPOINT_PAGES = 1000;
const DEFAULT_WAL_RESTART_FRAMES = 16_000;
/**
 * The WAL file is truncated to this size whenever it starts over, so the space a burst of
 * commits took is given back to the disk (PRAGMA journal_size_limit).
 */
const JOURNAL_SIZE_LIMIT_BYTES = 4 * 1024 * 1024;
/**
 * With background checkpoints, a commit still checkpoints inline once the WAL is this many
 * times the restart length: a ceiling for a worker that is stuck, never reached otherwise.
 */
const CEILING_FACTOR = 4;

/** SQLite result codes (prefixes of the extended codes) that mean "cannot reach the data now". */
const UNAVAILABLE_CODES = [
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_IOERR',
  'SQLITE_FULL',
  'SQLITE_CANTOPEN',
  'SQLITE_PROTOCOL',
  'SQLITE_READONLY',
  'SQLITE_NOMEM',
];

type RowResult = ItemResult<CreateOutcome>;

/**
 * Opens (creating and migrating when needed) the SQLite plant store at `options.filename`.
 * Throws when SQLite does not accept WAL mode or the requested durability, or when the file's
 * schema is newer than this code.
 *
 * @example
 * const store = createSqliteStore({ filename: 'data/plants.db' });
 * await store.create({ id: 1n, name: 'Fern' }); // 'created'
 */
export function createSqliteStore(options: SqliteStoreOptions): SqliteStore {
  return new SqliteStore(options);
}

/**
 * PlantStore on one better-sqlite3 connection. Creates that arrive in the same event-loop
 * turn are committed together in one IMMEDIATE transaction (group commit), so one fsync
 * serves them all; each still gets its own outcome, and a row that fails does not fail the
 * others. ids are bound and read as bigint, so every int64 round-trips exactly.
 */
export class SqliteStore implements PlantStore {
  /** The database file. */
  readonly filename: string;
  readonly #db: Database.Database;
  readonly #insert: Database.Statement<[bigint, string, string | null]>;
  readonly #select: Database.Statement<[bigint], PlantRow>;
  readonly #ping: Database.Statement<[], unknown>;
  readonly #commitBatch: Database.Transaction<(plants: readonly NewPlant[]) => RowResult[]>;
  readonly #queue: GroupCommitQueue<NewPlant, CreateOutcome>;
  readonly #checkpointer: WalCheckpointer | undefined;
  readonly #probeWrite: Database.Statement<[], unknown>;
  readonly #files: readonly WatchedFile[];
  readonly #readiness: WriteReadiness;
  #closed = false;

  /** Prefer `createSqliteStore`; opens the connection synchronously. */
  constructor(options: SqliteStoreOptions) {
    this.filename = options.filename;
    this.#queue = new GroupCommitQueue({
      maxBatchSize: options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE,
      commit: observeCommit((plants) => this.#commitPlants(plants), options.observer),
    });
    this.#db = openDatabase(options);
    try {
      this.#insert = this.#db.prepare(
        'INSERT INTO plants (id, name, tag) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING',
      );
      this.#select = this.#db.prepare('SELECT id, name, tag FROM plants WHERE id = ?');
      this.#ping = this.#db.prepare('SELECT 1');
      // The probe writes the file's application_id back unchanged: one real page write and
      // commit, with no change to what is stored.
      const applicationId = Number(this.#db.pragma('application_id', { simple: true }));
      this.#probeWrite = this.#db.prepare(`PRAGMA application_id = ${applicationId}`);
      this.#files = watchFiles(this.filename);
      this.#readiness = new WriteReadiness({
        probe: () => this.#probe(),
        describe: (error) => describeSqliteFailure(error, this.filename),
        ...(options.probeIntervalMs === undefined
          ? {}
          : { intervalMs: positiveInteger('probeIntervalMs', options.probeIntervalMs) }),
        ...(options.onReadinessChange ? { onChange: options.onReadinessChange } : {}),
        ...(options.timers ? { timers: options.timers } : {}),
      });
      this.#commitBatch = this.#db.transaction((plants: readonly NewPlant[]) =>
        plants.map((plant) => this.#createInTransaction(plant)),
      );
      this.#checkpointer =
        options.checkpoints === 'background' ? this.#startCheckpointer(options) : undefined;
    } catch (error) {
      this.#db.close();
      throw error;
    }
    this.#readiness.start();
  }

  /**
   * Whether the store can commit, from its latest write (a commit, or the probe that writes
   * every `probeIntervalMs`): not ready while the disk is full, the file is read-only, or the
   * database file (or its -wal/-shm) is no longer the file at its path (deleted or replaced).
   */
  readiness(): Readiness {
    if (this.#closed) return { ready: false, cause: CLOSED_CAUSE };
    return this.#readiness.current();
  }

  /** Runs the write probe now; resolves with the readiness it leaves. */
  probeReadiness(): Promise<Readiness> {
    return this.#readiness.probe();
  }

  /** Queues `plant` for the next group commit; resolves after that commit. */
  create(plant: NewPlant): Promise<CreateOutcome> {
    if (this.#closed) return Promise.reject(closedError());
    return this.#queue.submit(plant);
  }

  /** The stored plant with this id (`tag` only when it is set), or `undefined`. */
  async get(id: bigint): Promise<NewPlant | undefined> {
    if (this.#closed) throw closedError();
    let row: PlantRow | undefined;
    try {
      row = this.#select.get(id);
    } catch (error) {
      throw translateError(error);
    }
    return row === undefined ? undefined : storedPlant(row);
  }

  /** Runs `SELECT 1`. */
  async ping(): Promise<void> {
    if (this.#closed) throw closedError();
    try {
      this.#ping.get();
    } catch (error) {
      throw translateError(error);
    }
  }

  /** Commits every queued create, then closes the connection. Later calls reject; a second close resolves. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#readiness.stop();
    // The worker's connection first: closing the last connection checkpoints and removes the WAL.
    await this.#checkpointer?.close();
    await this.#queue.drain();
    this.#db.close();
  }

  /** The connection's settings, read back from SQLite. Throws once the store is closed. */
  settings(): SqliteSettings {
    return {
      journalMode: String(this.#db.pragma('journal_mode', { simple: true })),
      synchronous: Number(this.#db.pragma('synchronous', { simple: true })),
      busyTimeoutMs: Number(this.#db.pragma('busy_timeout', { simple: true })),
      schemaVersion: schemaVersion(this.#db),
      walAutocheckpoint: Number(this.#db.pragma('wal_autocheckpoint', { simple: true })),
      checkpoints: this.#checkpointer?.stats().running ? 'background' : 'inline',
    };
  }

  /** Counters of the background checkpointer; `undefined` when checkpoints are inline. */
  checkpointStats(): WalCheckpointerStats | undefined {
    return this.#checkpointer?.stats();
  }

  /** Counters of the group-commit path, for tests and diagnostics. */
  stats(): SqliteStoreStats {
    return this.#queue.stats();
  }

  /**
   * Hands checkpoints to a worker thread; SQLite's own stay as a ceiling, and come back at
   * their default if the worker fails.
   */
  #startCheckpointer(options: SqliteStoreOptions): WalCheckpointer {
    const restartFrames = positiveInteger(
      'walRestartFrames',
      options.walRestartFrames ?? DEFAULT_WAL_RESTART_FRAMES,
    );
    setPragma(
      this.#db,
      'wal_autocheckpoint',
      restartFrames * CEILING_FACTOR,
      restartFrames * CEILING_FACTOR,
    );
    return new WalCheckpointer({
      driverPath: SQLITE_DRIVER_PATH,
      filename: this.filename,
      synchronous: Number(this.#db.pragma('synchronous', { simple: true })),
      busyTimeoutMs: Number(this.#db.pragma('busy_timeout', { simple: true })),
      restartFrames,
      ...(options.checkpointIntervalMs === undefined
        ? {}
        : { intervalMs: positiveInteger('checkpointIntervalMs', options.checkpointIntervalMs) }),
      ...(options.observer?.onCommitPause
        ? { onPause: options.observer.onCommitPause.bind(options.observer) }
        : {}),
      ...(options.onCheckpointError ? { onCheckpointError: options.onCheckpointError } : {}),
      pauseCommits: () => this.#queue.pause(),
      resumeCommits: () => this.#queue.resume(),
      onFailure: (error) => {
        if (!this.#closed) this.#db.pragma(`wal_autocheckpoint = ${INLINE_AUTOCHECKPOINT_PAGES}`);
        options.onCheckpointFailure?.(error);
      },
    });
  }

  /**
   * Commits one batch of creates in one IMMEDIATE transaction (called by the queue). A batch
   * that finds the disk full is tried once more after the WAL was copied into the database
   * file and truncated, which gives back the space the WAL held. Before anyone hears of the
   * commit, the files are checked to still be the ones at the path: a commit into a deleted
   * or replaced file fails (503), since what it stored is gone with that file.
   */
  #commitPlants(plants: readonly NewPlant[]): RowResult[] {
    let results: RowResult[];
    try {
      try {
        results = this.#commitBatch.immediate(plants);
      } catch (error) {
        if (!(isSqliteCode(error, 'SQLITE_FULL') && this.#truncateWal())) throw error;
        results = this.#commitBatch.immediate(plants);
      }
      checkFiles(this.#files);
    } catch (error) {
      const translated = translateError(error);
      this.#readiness.noteWrite(translated);
      throw translated;
    }
    const translated = results.map((result) =>
      result.ok ? result : { ok: false as const, error: translateError(result.error) },
    );
    const unavailable = translated.find(
      (result) => !result.ok && result.error instanceof StoreUnavailableError,
    );
    this.#readiness.noteWrite(unavailable?.ok === false ? unavailable.error : undefined);
    return translated;
  }

  /**
   * Copies every WAL frame into the database file and truncates the WAL to nothing; true when
   * that worked (false when it could not, e.g. the database file could not grow either).
   */
  #truncateWal(): boolean {
    try {
      const rows = this.#db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number | bigint }[];
      return Number(rows[0]?.busy ?? 1) === 0;
    } catch {
      return false;
    }
  }

  /** The readiness probe: one small real write, then the files' identity; false when skipped. */
  #probe(): boolean {
    if (this.#closed) throw closedError();
    // Commits are held while the checkpointer lets the WAL start over: no write then either.
    if (this.#queue.paused) return false;
    try {
      this.#probeWrite.run();
    } catch (error) {
      if (!(isSqliteCode(error, 'SQLITE_FULL') && this.#truncateWal())) throw error;
      this.#probeWrite.run();
    }
    checkFiles(this.#files);
    return true;
  }

  /**
   * One create inside the batch transaction. A failing statement is rolled back alone by
   * SQLite, so its error is this row's; when SQLite had to roll back the whole transaction,
   * the error is rethrown and fails the batch, since nothing in it can commit.
   */
  #createInTransaction(plant: NewPlant): RowResult {
    try {
      return { ok: true, value: this.#createRow(plant) };
    } catch (error) {
      if (!this.#db.inTransaction) throw error;
      return { ok: false, error };
    }
  }

  #createRow(plant: NewPlant): CreateOutcome {
    const tag = plant.tag ?? null;
    if (this.#insert.run(plant.id, plant.name, tag).changes === 1) return 'created';
    const existing = this.#select.get(plant.id);
    if (existing === undefined) throw new Error(`Plant ${plant.id} neither inserted nor found`);
    return existing.name === plant.name && existing.tag === tag ? 'replayed' : 'conflict';
  }
}

/** Opens the file with WAL, the requested synchronous level and busy timeout, all read back; then migrates. */
function openDatabase(options: SqliteStoreOptions): Database.Database {
  const { filename } = options;
  if (filename === '' || filename === ':memory:') {
    throw new Error(`The SQLite store needs a database file, not ${JSON.stringify(filename)}`);
  }
  const durability = options.durability ?? 'full';
  if (!(durability in SYNCHRONOUS_LEVEL)) {
    throw new Error(`durability must be 'full' or 'normal', not ${JSON.stringify(durability)}`);
  }
  const busyTimeoutMs = nonNegativeInteger(
    'busyTimeoutMs',
    options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS,
  );
  mkdirSync(dirname(filename), { recursive: true });
  const db = openSqlite(filename, { timeout: busyTimeoutMs });
  try {
    db.defaultSafeIntegers(true);
    setPragma(db, 'busy_timeout', busyTimeoutMs, busyTimeoutMs);
    setPragma(db, 'journal_mode', 'WAL', 'wal');
    // After WAL: better-sqlite3 is built with SQLITE_DEFAULT_WAL_SYNCHRONOUS=1, so a WAL
    // connection silently gets NORMAL unless synchronous is set explicitly.
    setPragma(db, 'synchronous', SYNCHRONOUS_LEVEL[durability], SYNCHRONOUS_LEVEL[durability]);
    setPragma(db, 'journal_size_limit', JOURNAL_SIZE_LIMIT_BYTES, JOURNAL_SIZE_LIMIT_BYTES);
    migrate(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function setPragma(
  db: Database.Database,
  name: string,
  value: string | number,
  expected: string | number,
): void {
  db.pragma(`${name} = ${value}`);
  const raw = db.pragma(name, { simple: true });
  const actual = typeof raw === 'bigint' ? Number(raw) : raw;
  if (actual !== expected) {
    throw new Error(
      `SQLite did not apply PRAGMA ${name} = ${value} on ${db.name}: it reads back ${String(raw)}, expected ${expected}`,
    );
  }
}

/** SQLite errors that mean the database cannot be reached become StoreUnavailableError. */
function translateError(error: unknown): unknown {
  if (error instanceof DatabaseFileGoneError) {
    return new StoreUnavailableError(`The database file is gone: ${error.message}`, {
      cause: error,
    });
  }
  if (
    error instanceof SqliteError &&
    UNAVAILABLE_CODES.some((code) => error.code.startsWith(code))
  ) {
    return new StoreUnavailableError(`SQLite is unavailable: ${error.message}`, { cause: error });
  }
  return error;
}

function closedError(): StoreUnavailableError {
  return new StoreUnavailableError('The plant store is closed');
}

function isSqliteCode(error: unknown, code: string): boolean {
  return error instanceof SqliteError && error.code.startsWith(code);
}

/** One of the database's files and the identity (device, inode) it had when the store opened. */
interface WatchedFile {
  readonly path: string;
  readonly dev: bigint;
  readonly ino: bigint;
}

/** Thrown when a database file is no longer the one the store has open. */
export class DatabaseFileGoneError extends Error {
  override readonly name = 'DatabaseFileGoneError';
  constructor(
    readonly code: 'FILE_DELETED' | 'FILE_REPLACED',
    readonly path: string,
  ) {
    super(
      code === 'FILE_DELETED'
        ? `${path} was deleted while the server had it open`
        : `${path} was replaced by another file while the server had it open`,
    );
  }
}

/** The database file, its WAL and shared-memory file, as they are now (all exist in WAL mode). */
function watchFiles(filename: string): WatchedFile[] {
  return [filename, `${filename}-wal`, `${filename}-shm`].map((path) => {
    const stats = statSync(path, { bigint: true });
    return { path, dev: stats.dev, ino: stats.ino };
  });
}

/** Throws DatabaseFileGoneError unless every file at its path is still the one opened. */
function checkFiles(files: readonly WatchedFile[]): void {
  for (const file of files) {
    let stats: BigIntStats | undefined;
    try {
      stats = statSync(file.path, { bigint: true, throwIfNoEntry: false });
    } catch {
      stats = undefined;
    }
    if (stats === undefined) throw new DatabaseFileGoneError('FILE_DELETED', file.path);
    if (stats.dev !== file.dev || stats.ino !== file.ino) {
      throw new DatabaseFileGoneError('FILE_REPLACED', file.path);
    }
  }
}

const CLOSED_CAUSE: NotReadyCause = {
  code: 'CLOSED',
  message: 'The plant store is closed',
  action: 'The server is shutting down.',
};

/**
 * Why a write to the SQLite store failed, with what the operator should do about it.
 *
 * @example
 * describeSqliteFailure(error, 'data/plants.db'); // { code: 'SQLITE_FULL', message: …, action: 'Free space …' }
 */
export function describeSqliteFailure(error: unknown, filename: string): NotReadyCause {
  const cause = error instanceof StoreUnavailableError ? (error.cause ?? error) : error;
  if (cause instanceof DatabaseFileGoneError) {
    return {
      code: cause.code,
      message: cause.message,
      action:
        'Creates are refused, so none is acknowledged into a file that is gone. Put the ' +
        'database file back if it was removed by mistake, then restart the server; never ' +
        "delete or replace a running server's database files.",
    };
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  const code = cause instanceof SqliteError ? cause.code : undefined;
  if (code?.startsWith('SQLITE_FULL')) {
    return {
      code,
      message: `The disk holding ${filename} is full: ${message}`,
      action: `Free space on the file system of ${dirname(filename)}; the server is ready again within seconds of the next successful write.`,
    };
  }
  if (code?.startsWith('SQLITE_READONLY')) {
    return {
      code,
      message: `${filename} cannot be written: ${message}`,
      action:
        "Make the database file, its -wal and -shm files and their directory writable by the server's user (and the file system writable), then restart the server.",
    };
  }
  if (code?.startsWith('SQLITE_IOERR')) {
    return {
      code,
      message: `I/O error on ${filename}: ${message}`,
      action: 'Check the disk and the kernel log; the server is ready again once a write succeeds.',
    };
  }
  return {
    code: code ?? (cause instanceof Error ? cause.name : 'UNKNOWN'),
    message: `A write to ${filename} failed: ${message}`,
    action: 'See the error; the server is ready again once a write succeeds.',
  };
}
