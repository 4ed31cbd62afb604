import { type BigIntStats, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { NewPlant } from '@plant-store/schema';
import type Database from 'better-sqlite3';
import { BatchedStore, type BatchedStoreOptions, type RowResult } from '../batched-store.ts';
import {
  type CreateOutcome,
  type Durability,
  outcomeAgainst,
  type PlantRow,
  storedPlant,
} from '../plant-store.ts';
import { openSqlite } from './driver.ts';
import {
  DatabaseFileGoneError,
  describeSqliteFailure,
  sqliteCode,
  sqliteOpenError,
  translateSqliteError,
} from './errors.ts';
import { migrate, schemaVersion } from './migrations.ts';

/** Options of `createSqliteStore`; `busyTimeoutMs` is how long a statement waits for a lock. */
export interface SqliteStoreOptions extends BatchedStoreOptions {
  /** Path of the database file; its directory is created when missing. */
  readonly filename: string;
  readonly durability?: Durability;
  readonly busyTimeoutMs?: number;
}

const SYNCHRONOUS: Record<Durability, number> = { normal: 1, full: 2 };

/** Opens (creating and migrating when needed) the SQLite store, or throws a StoreOpenError. */
export function createSqliteStore(options: SqliteStoreOptions): SqliteStore {
  return new SqliteStore(options);
}

/**
 * PlantStore on one better-sqlite3 connection in WAL mode: creates of one event-loop turn commit
 * in one IMMEDIATE transaction (one fsync with `synchronous=FULL`), and SQLite's own
 * auto-checkpoint copies the WAL into the database file. ids are bound and read as bigint, so
 * every int64 round-trips exactly. A commit is acknowledged only while the files at the path are
 * still the ones open (a deleted or replaced file answers 503).
 */
export class SqliteStore extends BatchedStore {
  readonly #filename: string;
  readonly #db: Database.Database;
  readonly #insert: Database.Statement<[bigint, string, string | null]>;
  readonly #select: Database.Statement<[bigint], PlantRow>;
  readonly #probe: Database.Statement<[], unknown>;
  readonly #commit: Database.Transaction<(plants: readonly NewPlant[]) => RowResult[]>;
  readonly #files: readonly { path: string; opened: BigIntStats }[];

  constructor(options: SqliteStoreOptions) {
    super(options);
    const { filename } = options;
    if (filename === '' || filename === ':memory:') {
      throw new Error(`The SQLite store needs a database file, not ${JSON.stringify(filename)}`);
    }
    this.#filename = filename;
    this.#db = openDatabase(filename, options.durability ?? 'full', options.busyTimeoutMs ?? 5000);
    this.#insert = this.#db.prepare(
      'INSERT INTO plants (id, name, tag) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING',
    );
    this.#select = this.#db.prepare('SELECT id, name, tag FROM plants WHERE id = ?');
    // Writes the file's application_id back unchanged: one real page write and commit.
    const applicationId = Number(this.#db.pragma('application_id', { simple: true }));
    this.#probe = this.#db.prepare(`PRAGMA application_id = ${applicationId}`);
    // A failing statement is rolled back alone by SQLite, so its error is this row's; when
    // SQLite rolled back the whole transaction, the error fails the batch (nothing can commit).
    this.#commit = this.#db.transaction((plants: readonly NewPlant[]) =>
      plants.map((plant): RowResult => {
        try {
          return { ok: true, value: this.#createRow(plant) };
        } catch (error) {
          if (!this.#db.inTransaction) throw error;
          return { ok: false, error };
        }
      }),
    );
    this.#files = [filename, `${filename}-wal`, `${filename}-shm`].map((path) => ({
      path,
      opened: statSync(path, { bigint: true }),
    }));
    this.startProbing();
  }

  /** The connection's settings, read back from SQLite (synchronous: 1 NORMAL, 2 FULL). */
  settings() {
    const read = (name: string) => this.#db.pragma(name, { simple: true });
    return {
      journalMode: String(read('journal_mode')),
      synchronous: Number(read('synchronous')),
      busyTimeoutMs: Number(read('busy_timeout')),
      schemaVersion: schemaVersion(this.#db),
      walAutocheckpoint: Number(read('wal_autocheckpoint')),
    };
  }

  /** One IMMEDIATE transaction for the batch. */
  protected commitBatch(plants: readonly NewPlant[]): RowResult[] {
    const results = this.#retryWhenFull(() => this.#commit.immediate(plants));
    this.#checkFiles();
    return results;
  }

  protected async query1(): Promise<void> {
    this.#db.prepare('SELECT 1').get();
  }

  protected async probeWrite(): Promise<void> {
    this.#retryWhenFull(() => this.#probe.run());
    this.#checkFiles();
  }

  protected translate = translateSqliteError;
  protected describe = (error: unknown) => describeSqliteFailure(error, this.#filename);

  protected async release(): Promise<void> {
    this.#db.close();
  }

  /** A write that finds the disk full is retried once after a TRUNCATE checkpoint freed the WAL. */
  #retryWhenFull<T>(write: () => T): T {
    try {
      return write();
    } catch (error) {
      if (!sqliteCode(error)?.startsWith('SQLITE_FULL')) throw error;
      const [result] = this.#db.pragma('wal_checkpoint(TRUNCATE)') as { busy: bigint }[];
      if (result?.busy !== 0n) throw error;
      return write();
    }
  }

  /** Throws DatabaseFileGoneError unless every file at its path is still the one opened. */
  #checkFiles(): void {
    for (const { path, opened } of this.#files) {
      const now = statSync(path, { bigint: true, throwIfNoEntry: false });
      if (now === undefined) throw new DatabaseFileGoneError('FILE_DELETED', path);
      if (now.dev !== opened.dev || now.ino !== opened.ino) {
        throw new DatabaseFileGoneError('FILE_REPLACED', path);
      }
    }
  }

  #createRow(plant: NewPlant): CreateOutcome {
    if (this.#insert.run(plant.id, plant.name, plant.tag ?? null).changes === 1) return 'created';
    const existing = this.#select.get(plant.id);
    if (existing === undefined) throw new Error(`Plant ${plant.id} neither inserted nor found`);
    return outcomeAgainst(storedPlant(existing), plant);
  }
}

/** Opens the file in WAL mode with the requested synchronous level (read back), then migrates. */
function openDatabase(
  filename: string,
  durability: Durability,
  busyTimeoutMs: number,
): Database.Database {
  let db: Database.Database | undefined;
  try {
    mkdirSync(dirname(filename), { recursive: true });
    db = openSqlite(filename, { timeout: busyTimeoutMs });
    db.defaultSafeIntegers(true);
    db.pragma('journal_mode = WAL');
    // After WAL: better-sqlite3 is built with SQLITE_DEFAULT_WAL_SYNCHRONOUS=1, so a WAL
    // connection silently gets NORMAL unless synchronous is set explicitly.
    db.pragma(`synchronous = ${SYNCHRONOUS[durability]}`);
    // The WAL file is truncated to 4 MiB when it starts over, giving a burst's space back.
    db.pragma(`journal_size_limit = ${4 * 1024 * 1024}`);
    const mode = db.pragma('journal_mode', { simple: true });
    const synchronous = Number(db.pragma('synchronous', { simple: true }));
    if (mode !== 'wal' || synchronous !== SYNCHRONOUS[durability]) {
      throw new Error(
        `SQLite did not apply journal_mode=WAL and synchronous=${SYNCHRONOUS[durability]} (it reads back ${String(mode)}, ${synchronous})`,
      );
    }
    migrate(db);
    return db;
  } catch (error) {
    db?.close();
    throw sqliteOpenError(error, filename);
  }
}
