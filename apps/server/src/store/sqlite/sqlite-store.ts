import { type BigIntStats, statSync } from 'node:fs';
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
} from '../plant-store.ts';
import { DatabaseFileGoneError, translateSqliteError } from './errors.ts';
import { type OpenDatabaseOptions, openDatabase } from './open-database.ts';

export interface SqliteStoreOptions extends BatchedStoreOptions, OpenDatabaseOptions {
  readonly filename: string;
  /** The process's one connection; without it the store opens its own. */
  readonly db?: Database.Database;
}

export const createSqliteStore = (options: SqliteStoreOptions) => new SqliteStore(options);

/** A commit is acknowledged only while the files at the path are still the ones open. */
export class SqliteStore extends BatchedStore {
  readonly #db: Database.Database;
  readonly #ownsDb: boolean;
  readonly #insert: Database.Statement<[bigint, ...(string | null)[]]>;
  readonly #select: Database.Statement<[bigint], PlantRow>;
  readonly #probe: Database.Statement<[], unknown>;
  readonly #commit: Database.Transaction<(plants: readonly NewPlant[]) => RowResult[]>;
  readonly #files: readonly { path: string; opened: BigIntStats }[];
  readonly #directory: string;
  /** The directory when a full check last found every file the one opened. */
  #checkedDirectory: string | undefined;

  constructor(options: SqliteStoreOptions) {
    super(options);
    const { filename } = options;
    this.#ownsDb = options.db === undefined;
    this.#db = options.db ?? openDatabase(filename, options);
    // ids as bigint, on these statements only: the connection is shared with tokens and limits.
    this.#insert = this.#db
      .prepare<[bigint, ...(string | null)[]]>(
        `INSERT INTO plants (${PLANT_COLUMNS}) VALUES (${PLANT_COLUMNS.replace(/\w+/g, '?')}) ON CONFLICT (id) DO NOTHING`,
      )
      .safeIntegers(true);
    this.#select = this.#db
      .prepare<[bigint], PlantRow>(`SELECT ${PLANT_COLUMNS} FROM plants WHERE id = ?`)
      .safeIntegers(true);
    // Writes the file's application_id back unchanged: one real page write and commit.
    const applicationId = Number(this.#db.pragma('application_id', { simple: true }));
    this.#probe = this.#db.prepare(`PRAGMA application_id = ${applicationId}`);
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
    this.#directory = dirname(filename);
    this.#files = [filename, `${filename}-wal`, `${filename}-shm`].map((path) => ({
      path,
      opened: statSync(path, { bigint: true }),
    }));
    this.startProbing();
  }

  protected commitBatch(plants: readonly NewPlant[]): RowResult[] {
    const results = this.#retryWhenFull(() => this.#commit.immediate(plants));
    this.#checkFiles();
    return results;
  }

  protected async probeWrite(): Promise<void> {
    this.#retryWhenFull(() => this.#probe.run());
    this.#checkFiles();
  }

  protected translate = translateSqliteError;

  protected async release(): Promise<void> {
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

  /** Deleting, renaming or replacing a file changes its directory's mtime: unchanged, one stat. */
  #checkFiles(): void {
    // Not bigint: no BigInts made per batch; mtimeMs keeps the nanoseconds a double can hold.
    const directory = statSync(this.#directory, { throwIfNoEntry: false });
    const seen = directory && `${directory.dev}:${directory.ino}:${directory.mtimeMs}`;
    if (seen !== undefined && seen === this.#checkedDirectory) return;
    this.#checkedDirectory = undefined;
    for (const { path, opened } of this.#files) {
      const now = statSync(path, { bigint: true, throwIfNoEntry: false });
      if (now === undefined) throw new DatabaseFileGoneError('FILE_DELETED', path);
      if (now.dev !== opened.dev || now.ino !== opened.ino) {
        throw new DatabaseFileGoneError('FILE_REPLACED', path);
      }
    }
    // Trusted once 2 s old: a change in the same coarse mtime tick (FAT: 2 s) would not show.
    if (directory !== undefined && Date.now() - Number(directory.mtimeMs) > 2_000) {
      this.#checkedDirectory = seen;
    }
  }

  #createRow(plant: NewPlant): CreateOutcome {
    if (this.#insert.run(plant.id, ...fieldValues(plant)).changes === 1) return 'created';
    const existing = this.#select.get(plant.id);
    if (existing === undefined) throw new Error(`Plant ${plant.id} neither inserted nor found`);
    return outcomeAgainst(existing, plant);
  }
}
