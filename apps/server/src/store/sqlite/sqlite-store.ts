import { type BigIntStats, closeSync, fstatSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { NewPlant } from '@plant-store/schema';
import type Database from 'better-sqlite3';
import { BatchedStore, type BatchedStoreOptions, type RowResult } from '../batched-store.ts';
import {
  type CreateOutcome,
  errorCode,
  fieldValues,
  outcomeAgainst,
  PLANT_COLUMNS,
  type PlantRow,
  type PlantStore,
} from '../plant-store.ts';
import { DatabaseFileGoneError, translateSqliteError } from './errors.ts';
import { type OpenDatabaseOptions, openDatabase, writeBack } from './open-database.ts';

export interface SqliteStoreOptions extends BatchedStoreOptions, OpenDatabaseOptions {
  readonly filename: string;
  /** The process's one connection; without it the store opens its own. */
  readonly db?: Database.Database;
}

export const createSqliteStore = (options: SqliteStoreOptions) => new SqliteStore(options);

/** A commit is acknowledged only while the files at the path are still the ones open. */
export class SqliteStore extends BatchedStore implements PlantStore {
  readonly #db: Database.Database;
  readonly #ownsDb: boolean;
  readonly #insert: Database.Statement<[bigint, ...(string | number | null)[]]>;
  readonly #select: Database.Statement<[bigint], PlantRow>;
  readonly #commit: Database.Transaction<(plants: readonly NewPlant[]) => RowResult[]>;
  readonly #files: readonly { path: string; opened: BigIntStats }[];
  readonly #directory: { readonly path: string; readonly fd: number; readonly opened: BigIntStats };
  /** The directory's mtime when a full check last found every file the one opened. */
  #checkedMtime: number | undefined;

  constructor(options: SqliteStoreOptions) {
    super(options);
    const { filename } = options;
    this.#ownsDb = options.db === undefined;
    this.#db = options.db ?? openDatabase(filename, options);
    // ids as bigint, on these statements only: the connection is shared with tokens and limits.
    this.#insert = this.#db
      .prepare<[bigint, ...(string | number | null)[]]>(
        `INSERT INTO plants (${PLANT_COLUMNS}) VALUES (${PLANT_COLUMNS.replace(/\w+/g, '?')}) ON CONFLICT (id) DO NOTHING`,
      )
      .safeIntegers(true);
    this.#select = this.#db
      .prepare<[bigint], PlantRow>(`SELECT ${PLANT_COLUMNS} FROM plants WHERE id = ?`)
      .safeIntegers(true);
    // SQLite rolls a failing statement back alone (the row's error) unless it rolled back the
    // whole transaction (the batch's error).
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
    // Opened last: nothing after it in the constructor can throw and leave it open.
    const directory = dirname(filename);
    const fd = openSync(directory, 'r');
    this.#directory = { path: directory, fd, opened: fstatSync(fd, { bigint: true }) };
    this.startProbing();
  }

  protected async commitBatch(plants: readonly NewPlant[]): Promise<RowResult[]> {
    const results = this.#retryWhenFull(() => this.#commit.immediate(plants));
    this.#checkFiles(false);
    return results;
  }

  protected async probeWrite(): Promise<void> {
    this.#retryWhenFull(() => writeBack(this.#db));
    this.#checkFiles(true);
  }

  protected translate = translateSqliteError;

  protected async release(): Promise<void> {
    closeSync(this.#directory.fd);
    if (this.#ownsDb) this.#db.close();
  }

  /** A write that finds the disk full is retried once after a checkpoint freed the WAL. */
  #retryWhenFull<T>(write: () => T): T {
    try {
      return write();
    } catch (error) {
      if (!errorCode(error)?.startsWith('SQLITE_FULL')) throw error;
      const [result] = this.#db.pragma('wal_checkpoint(TRUNCATE)') as { busy: bigint }[];
      if (result?.busy !== 0n) throw error;
      return write();
    }
  }

  /**
   * Deleting, renaming or replacing a file changes its directory's mtime: after a commit, while
   * the mtime is unchanged, one fstat of the directory's descriptor instead of a stat of each
   * path. The probe also checks the path names the directory opened (one moved away and
   * replaced is seen within its interval).
   */
  #checkFiles(full: boolean): void {
    const { mtimeMs } = fstatSync(this.#directory.fd);
    if (!full && mtimeMs === this.#checkedMtime) return;
    this.#checkedMtime = undefined;
    for (const { path, opened } of full ? [...this.#files, this.#directory] : this.#files) {
      const now = statSync(path, { bigint: true, throwIfNoEntry: false });
      if (now === undefined) throw new DatabaseFileGoneError('FILE_DELETED', path);
      if (now.dev !== opened.dev || now.ino !== opened.ino) {
        throw new DatabaseFileGoneError('FILE_REPLACED', path);
      }
    }
    // Trusted once 2 s old: a change in the same coarse mtime tick (FAT: 2 s) would not show.
    if (Date.now() - mtimeMs > 2_000) this.#checkedMtime = mtimeMs;
  }

  #createRow(plant: NewPlant): CreateOutcome {
    if (this.#insert.run(plant.id, ...fieldValues(plant)).changes === 1) return 'created';
    const existing = this.#select.get(plant.id);
    if (existing === undefined) throw new Error(`Plant ${plant.id} neither inserted nor found`);
    return outcomeAgainst(existing, plant);
  }
}
