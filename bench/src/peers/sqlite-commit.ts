import { createRequire } from 'node:module';
import {
  FIELD_LIST,
  type NewPlant,
  PLANT_FIELDS,
  type Plant,
  type PlantField,
  plantOf,
} from '@plant-store/schema';
import type BetterSqlite3 from 'better-sqlite3';

/** better-sqlite3 12 on Node 20, 13 from Node 22 on (12 aborts Node ≥ 24.19 when a statement is collected). */
const Database = createRequire(import.meta.url)(
  Number(process.versions.node.split('.')[0]) >= 22 ? 'better-sqlite3-13' : 'better-sqlite3',
) as typeof BetterSqlite3;

/** A field's value as SQLite takes it: a boolean as 1 or 0 (SQLite has no boolean). */
const bindable = (value: unknown) => (typeof value === 'boolean' ? Number(value) : (value ?? null));

/** A validated create: the id exact as a bigint. */
export type PlantRow = NewPlant;

/** The plants table's columns: `id`, then one per Plant field of the contract. */
const COLUMNS = ['id', ...PLANT_FIELDS].join(', ');

export type CreateOutcome = 'created' | 'conflict';

type Pending = {
  row: PlantRow;
  resolve: (outcome: CreateOutcome) => void;
  reject: (error: unknown) => void;
};

/**
 * The peers' durable store, the server's SQLite settings written plainly: the server's
 * `plants` table, WAL with `synchronous=FULL`, and group commit (creates queued in one
 * event-loop turn are inserted in one transaction, one fsync, on the next turn).
 *
 * @example
 * const store = new SqliteGroupCommit('/tmp/plants.db');
 * await store.create({ id: 1n, name: 'Fern' }); // 'created'
 */
export class SqliteGroupCommit {
  readonly #db: BetterSqlite3.Database;
  readonly #commit: (batch: readonly Pending[]) => CreateOutcome[];
  #queue: Pending[] = [];

  readonly #onCommit: (size: number, seconds: number, committed: boolean) => void;

  /** `onCommit` hears of every batch (its size, how long it took), as the server's metrics do. */
  constructor(
    filename: string,
    onCommit: (size: number, seconds: number, committed: boolean) => void = () => undefined,
  ) {
    this.#onCommit = onCommit;
    this.#db = new Database(filename);
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('synchronous = FULL');
    this.#db.exec(`CREATE TABLE IF NOT EXISTS plants (
      id INTEGER PRIMARY KEY,
      ${FIELD_LIST.map((field) => `${field.name} ${field.type === 'string' ? 'TEXT' : 'INTEGER'},`).join('\n')}
      created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    ) STRICT`);
    const insert = this.#db.prepare(
      `INSERT INTO plants (${COLUMNS}) VALUES (${COLUMNS.replace(/\w+/g, '?')}) ON CONFLICT (id) DO NOTHING`,
    );
    this.#commit = this.#db.transaction((batch: readonly Pending[]) =>
      batch.map(({ row }) =>
        insert.run(row.id, ...PLANT_FIELDS.map((field) => bindable(row[field]))).changes === 1
          ? 'created'
          : 'conflict',
      ),
    );
  }

  /** Queues one create; settles once its batch is committed. */
  create(row: PlantRow): Promise<CreateOutcome> {
    return new Promise((resolve, reject) => {
      if (this.#queue.length === 0) setImmediate(this.#flush);
      this.#queue.push({ row, resolve, reject });
    });
  }

  /** Commits what is queued, then closes the database. */
  close(): void {
    this.#flush();
    this.#db.close();
  }

  readonly #flush = (): void => {
    const batch = this.#queue;
    if (batch.length === 0) return;
    this.#queue = [];
    const started = performance.now();
    try {
      const outcomes = this.#commit(batch);
      this.#onCommit(batch.length, (performance.now() - started) / 1000, true);
      batch.forEach((pending, i) => {
        pending.resolve(outcomes[i] ?? 'conflict');
      });
    } catch (error) {
      this.#onCommit(batch.length, (performance.now() - started) / 1000, false);
      for (const pending of batch) pending.reject(error);
    }
  };
}

/**
 * The server's limiter side file written plainly (`<database>-limits`): WAL, `synchronous=OFF`,
 * a 250 ms busy timeout, handed to rate-limiter-flexible's `RateLimiterSQLite` as a client
 * that prepares each statement once, as the server's does.
 *
 * @example
 * const limits = openLimitsFile('/tmp/plants.db-limits');
 * limits.client.prepare('SELECT 1').get(); // RateLimiterSQLite's storeClient
 */
export function openLimitsFile(filename: string): {
  client: Pick<BetterSqlite3.Database, 'prepare' | 'transaction'>;
  close(): void;
} {
  const db = new Database(filename, { timeout: 250 });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const statements = new Map<string, BetterSqlite3.Statement>();
  const prepare = ((source: string) => {
    let statement = statements.get(source);
    if (statement === undefined) {
      statement = db.prepare(source);
      statements.set(source, statement);
    }
    return statement;
  }) as BetterSqlite3.Database['prepare'];
  return { client: { prepare, transaction: (fn) => db.transaction(fn) }, close: () => db.close() };
}

/** The plants of a plants table, ids exact, in id order, NULL fields left out (for checks and tests). */
export function storedPlants(filename: string): ({ id: bigint } & Plant)[] {
  const db = new Database(filename, { readonly: true });
  try {
    const rows = db.prepare(`SELECT ${COLUMNS} FROM plants ORDER BY id`).safeIntegers().all();
    return (rows as ({ id: bigint } & Record<PlantField, string | null>)[]).map((row) => ({
      id: row.id,
      ...plantOf(row),
    }));
  } finally {
    db.close();
  }
}

/** The points counted for `key` in a limiter table of a side file (for tests). */
export function limiterPoints(filename: string, table: string, key: string): number | undefined {
  const db = new Database(filename, { readonly: true });
  try {
    const row = db.prepare(`SELECT points FROM ${table} WHERE key = ?`).get(key);
    return (row as { points: number } | undefined)?.points;
  } finally {
    db.close();
  }
}
