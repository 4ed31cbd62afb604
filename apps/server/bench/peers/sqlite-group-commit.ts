import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);
// The better-sqlite3 major that runs on this Node (12 on Node 20, 13 from Node 22), chosen here
// rather than imported: a peer uses no module of the project.
const DRIVER =
  Number(process.versions.node.split('.')[0]) >= 22 ? 'better-sqlite3-13' : 'better-sqlite3';
const Driver = require(DRIVER) as typeof BetterSqlite3;

/** A validated create: `id` a safe-integer `number` or an exact `bigint` in int64 range. */
export interface PlantRow {
  readonly id: number | bigint;
  readonly name: string;
  readonly tag: string | undefined;
}

export type CreateOutcome = 'created' | 'conflict';
export type CreateCallback = (error: Error | undefined, outcome?: CreateOutcome) => void;

/**
 * Opens a SQLite file with the driver that suits this Node.
 *
 * @example
 * const db = openSqliteFile('/tmp/plants.db', { readonly: true });
 */
export function openSqliteFile(
  filename: string,
  options?: BetterSqlite3.Options,
): BetterSqlite3.Database {
  return new Driver(filename, options);
}

/**
 * The benchmark peers' durable commit, the smallest group commit there is: creates queued in
 * one event-loop turn are inserted in one transaction on the next (`setImmediate`), in WAL
 * mode with `synchronous=FULL`, so every batch ends with one fsync before its callers hear
 * `created`. While the fsync blocks the loop, new requests wait in their sockets and form the
 * next batch. The table is the server's `plants` table; SQLite's own WAL auto-checkpoint.
 *
 * @example
 * const commit = new SqliteGroupCommit('/tmp/plants.db');
 * commit.create({ id: 1, name: 'Fern', tag: undefined }, (error, outcome) => {});
 */
export class SqliteGroupCommit {
  readonly #db: BetterSqlite3.Database;
  readonly #commitBatch: (batch: readonly PlantRow[]) => CreateOutcome[];
  #queue: PlantRow[] = [];
  #callbacks: CreateCallback[] = [];
  #scheduled = false;

  constructor(filename: string) {
    this.#db = openSqliteFile(filename);
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('synchronous = FULL');
    this.#db.exec(`
      CREATE TABLE IF NOT EXISTS plants (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        tag TEXT,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
      ) STRICT`);
    const insert = this.#db.prepare(
      'INSERT INTO plants (id, name, tag) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING',
    );
    this.#commitBatch = this.#db.transaction((batch: readonly PlantRow[]) =>
      batch.map((row) =>
        insert.run(row.id, row.name, row.tag ?? null).changes === 1 ? 'created' : 'conflict',
      ),
    );
  }

  /** Queues one create; `done` runs once its batch is committed (or failed). */
  create(row: PlantRow, done: CreateCallback): void {
    this.#queue.push(row);
    this.#callbacks.push(done);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#flush);
    }
  }

  /** `create` as a promise. */
  createAsync(row: PlantRow): Promise<CreateOutcome> {
    return new Promise((resolve, reject) => {
      this.create(row, (error, outcome) => (error ? reject(error) : resolve(outcome ?? 'created')));
    });
  }

  /** Commits what is queued, then closes the database. */
  close(): void {
    this.#flush();
    this.#db.close();
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    const batch = this.#queue;
    const callbacks = this.#callbacks;
    if (batch.length === 0) return;
    this.#queue = [];
    this.#callbacks = [];
    let outcomes: CreateOutcome[];
    try {
      outcomes = this.#commitBatch(batch);
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      for (const done of callbacks) done(failure);
      return;
    }
    for (let i = 0; i < callbacks.length; i++)
      (callbacks[i] as CreateCallback)(undefined, outcomes[i]);
  };
}
