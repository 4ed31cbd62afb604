import { INT64_MAX, INT64_MIN, type NewPlant } from '@plant-store/schema';
import pg from 'pg';
import { GroupCommitQueue, type GroupCommitStats, type ItemResult } from '../group-commit.ts';
import { nonNegativeInteger, positiveInteger } from '../integer-option.ts';
import { maskUrl } from '../mask-url.ts';
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
import {
  isPostgresLoginRefused,
  isPostgresUnavailable,
  isStaleConnection,
  translatePostgresError,
} from './errors.ts';
import { migratePostgres } from './migrations.ts';
import { createPostgresPool, type PostgresPoolConfig, type PostgresPoolSettings } from './pool.ts';

/**
 * Options of `createPostgresStore`. The pool settings (`poolMax`, `connectTimeoutMs`,
 * `statementTimeoutMs`, `onError`) are the ones every PostgreSQL pool of the server shares
 * (see `pool.ts`); `onError` here also hears about each failed attempt while
 * opening waits for the database.
 */
export interface PostgresStoreOptions extends PostgresPoolConfig {
  /** A `postgres://` or `postgresql://` connection URL (its query parameters are honoured). */
  readonly url: string;
  /**
   * How long opening waits for a database that cannot be reached (retrying with backoff)
   * before it fails; 0 fails at the first attempt. Default 30000.
   */
  readonly startupWaitMs?: number;
  /**
   * `full` (default): commits wait for the WAL flush; opening refuses a server whose
   * `synchronous_commit` is `off`. `normal`: this store's sessions set
   * `synchronous_commit = off`: a database crash may lose the last acknowledged creates.
   */
  readonly durability?: Durability;
  /** Most creates committed by one INSERT; default 1000. */
  readonly maxBatchSize?: number;
  /** Most batches committing at once (each on its own connection); default 2. */
  readonly maxInFlight?: number;
  /** Told about every group commit (for metrics). */
  readonly observer?: StoreObserver;
  /** How often a cheap write checks that the store can commit; default 2000 ms. */
  readonly probeIntervalMs?: number;
  /** Told once per readiness transition (see `readiness`). */
  readonly onReadinessChange?: (readiness: Readiness, previous: Readiness) => void;
  /** The timers of the readiness probe (fakes in tests); the global ones by default. */
  readonly timers?: ReadinessTimers;
}

/** The pool settings in effect, for diagnostics and tests. */
export interface PostgresStoreSettings extends PostgresPoolSettings {
  /** `synchronous_commit` as a pooled session reports it. */
  readonly synchronousCommit: string;
}

const DEFAULTS = {
  startupWaitMs: 30_000,
  maxBatchSize: 1000,
  maxInFlight: 2,
};
const INT8_OID = 20;
const STARTUP_RETRY_FIRST_MS = 100;
const STARTUP_RETRY_MAX_MS = 2000;

const INSERT_BATCH = `
  INSERT INTO plants (id, name, tag)
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[])
  ON CONFLICT (id) DO NOTHING
  RETURNING id`;
const INSERT_ONE =
  'INSERT INTO plants (id, name, tag) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING RETURNING id';
const SELECT_MANY = 'SELECT id, name, tag FROM plants WHERE id = ANY($1::bigint[])';
const SELECT_ONE = 'SELECT id, name, tag FROM plants WHERE id = $1';
/**
 * The readiness probe: an INSERT into plants that inserts nothing (so a read-only database,
 * a standby or a missing privilege fails it as it fails a create) in a transaction that gets
 * a transaction id, whose commit record PostgreSQL writes to its WAL: a real, tiny commit.
 */
const PROBE_WRITE = `
  WITH probe AS (INSERT INTO plants (id, name) SELECT 0, '' WHERE false RETURNING id)
  SELECT txid_current() AS xid, (SELECT count(*) FROM probe) AS inserted`;

/**
 * Opens the PostgreSQL plant store at `options.url`: creates the pool, waits for the database
 * (up to `startupWaitMs`, retrying while it cannot be reached), checks durability and runs
 * the migrations under an advisory lock. Fails with a message naming the database (its
 * password masked) when the database stays unreachable or refuses the login or schema.
 *
 * @example
 * const store = await createPostgresStore({ url: 'postgres://app:secret@db:5432/plants' });
 * await store.create({ id: 1n, name: 'Fern' }); // 'created'
 */
export async function createPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const store = new PostgresStore(options);
  try {
    await store.open(options.startupWaitMs ?? DEFAULTS.startupWaitMs);
  } catch (error) {
    await store.close().catch(() => undefined);
    throw new Error(
      `Cannot open the PostgreSQL store at ${maskUrl(options.url)}: ${describe(error)}`,
      { cause: error },
    );
  }
  return store;
}

/**
 * PlantStore on a pg pool. Creates that arrive in the same event-loop turn become one
 * `INSERT … SELECT FROM unnest(…) ON CONFLICT (id) DO NOTHING RETURNING id`: one statement,
 * one transaction, one WAL flush for the batch. Ids the insert did not return already
 * existed and are compared with the stored row (replayed or conflict). Duplicate ids inside
 * a batch are inserted once, the first one wins. Rows are inserted in id order, so
 * concurrent batches (here or in other instances) wait for each other instead of
 * deadlocking. A database that cannot be reached gives StoreUnavailableError.
 */
export class PostgresStore implements PlantStore {
  readonly #pool: pg.Pool;
  readonly #queue: GroupCommitQueue<NewPlant, CreateOutcome>;
  readonly #settings: PostgresPoolSettings;
  readonly #durability: Durability;
  readonly #onError: (error: Error, context: string) => void;
  readonly #readiness: WriteReadiness;
  #synchronousCommit = 'unknown';
  #closed = false;

  /** Prefer `createPostgresStore`, which also waits for the database and migrates it. */
  constructor(options: PostgresStoreOptions) {
    nonNegativeInteger('startupWaitMs', options.startupWaitMs ?? DEFAULTS.startupWaitMs);
    const durability = options.durability ?? 'full';
    if (durability !== 'full' && durability !== 'normal') {
      throw new Error(`durability must be 'full' or 'normal', not ${JSON.stringify(durability)}`);
    }
    this.#durability = durability;
    this.#onError = options.onError ?? (() => undefined);
    this.#queue = new GroupCommitQueue({
      maxBatchSize: options.maxBatchSize ?? DEFAULTS.maxBatchSize,
      maxInFlight: options.maxInFlight ?? DEFAULTS.maxInFlight,
      commit: observeCommit((plants) => this.#commitPlants(plants), options.observer),
    });
    const { pool, settings } = createPostgresPool({
      ...options,
      role: 'plants',
      // int8 as an exact bigint, for this pool only (pg's global default is a string).
      types: { getTypeParser: typeParser },
      synchronousCommitOff: durability === 'normal',
    });
    this.#pool = pool;
    this.#settings = settings;
    this.#readiness = new WriteReadiness({
      probe: async () => {
        if (this.#closed) throw closedError();
        await this.#query(PROBE_WRITE, [], this.#settings.connectTimeoutMs);
        return true;
      },
      describe: describePostgresFailure,
      ...(options.probeIntervalMs === undefined
        ? {}
        : { intervalMs: positiveInteger('probeIntervalMs', options.probeIntervalMs) }),
      ...(options.onReadinessChange ? { onChange: options.onReadinessChange } : {}),
      ...(options.timers ? { timers: options.timers } : {}),
    });
  }

  /**
   * Waits for the database (up to `startupWaitMs`), checks the durability setting and runs
   * the migrations. Called once by `createPostgresStore`.
   */
  async open(startupWaitMs: number): Promise<void> {
    const deadline = Date.now() + startupWaitMs;
    let delay = STARTUP_RETRY_FIRST_MS;
    for (;;) {
      try {
        await this.#checkDurability();
        await migratePostgres(this.#pool);
        this.#readiness.start();
        return;
      } catch (error) {
        const remaining = deadline - Date.now();
        const transient = isPostgresUnavailable(error) && !isPostgresLoginRefused(error);
        if (!transient || remaining <= 0) throw error;
        this.#onError(
          error instanceof Error ? error : new Error(String(error)),
          'waiting for PostgreSQL',
        );
        await sleep(Math.min(delay, remaining));
        delay = Math.min(delay * 2, STARTUP_RETRY_MAX_MS);
      }
    }
  }

  /** Queues `plant` for the next batch; resolves once the batch's INSERT committed. */
  create(plant: NewPlant): Promise<CreateOutcome> {
    if (this.#closed) return Promise.reject(closedError());
    return this.#queue.submit(plant);
  }

  /** The stored plant with this id (`tag` only when it is set), or `undefined`. */
  async get(id: bigint): Promise<NewPlant | undefined> {
    if (this.#closed) throw closedError();
    const rows = await this.#query<PlantRow>(SELECT_ONE, [int64Param(id)]);
    const row = rows[0];
    return row === undefined ? undefined : storedPlant(row);
  }

  /**
   * Runs `SELECT 1` on a pooled connection. Gives up after `connectTimeoutMs` even on a
   * connection that went silent, so a readiness probe gets its answer quickly.
   */
  async ping(): Promise<void> {
    if (this.#closed) throw closedError();
    await this.#query('SELECT 1', [], this.#settings.connectTimeoutMs);
  }

  /**
   * Whether the store can commit, from its latest write: a commit, or the probe that makes
   * a tiny real commit every `probeIntervalMs`. Not ready while PostgreSQL cannot be reached,
   * is read-only, out of disk, or refuses the writes.
   */
  readiness(): Readiness {
    if (this.#closed) return { ready: false, cause: CLOSED_CAUSE };
    return this.#readiness.current();
  }

  /** Runs the write probe now; resolves with the readiness it leaves. */
  probeReadiness(): Promise<Readiness> {
    return this.#readiness.probe();
  }

  /** Commits every queued create, then closes the pool. Later calls reject; a second close resolves. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#readiness.stop();
    await this.#queue.drain();
    await this.#pool.end();
  }

  /** The pool settings, with `synchronous_commit` as read when opening. */
  settings(): PostgresStoreSettings {
    return { ...this.#settings, synchronousCommit: this.#synchronousCommit };
  }

  /** Counters of the group-commit path: `commits` INSERT statements, `creates` settled creates. */
  stats(): GroupCommitStats {
    return this.#queue.stats();
  }

  /** Connections the pool holds, and how many are idle or awaited. */
  poolStats(): { total: number; idle: number; waiting: number } {
    return {
      total: this.#pool.totalCount,
      idle: this.#pool.idleCount,
      waiting: this.#pool.waitingCount,
    };
  }

  async #checkDurability(): Promise<void> {
    const rows = await this.#query<{ synchronous_commit: string }>('SHOW synchronous_commit', []);
    this.#synchronousCommit = rows[0]?.synchronous_commit ?? 'unknown';
    if (this.#durability === 'full' && this.#synchronousCommit === 'off') {
      throw new Error(
        'the server runs with synchronous_commit = off, so a created plant could be lost when ' +
          'the database crashes; turn it on for this database or role, or set DURABILITY=normal to accept that',
      );
    }
  }

  async #query<Row extends pg.QueryResultRow>(
    text: string,
    values: unknown[],
    queryTimeoutMs?: number,
  ): Promise<Row[]> {
    // pg honours a per-query `query_timeout` (its types do not list it).
    const query: pg.QueryConfig = {
      text,
      values,
      ...({ query_timeout: queryTimeoutMs } as object),
    };
    // Every query of the store is idempotent (reads, and inserts that do nothing on
    // conflict), so a query that met a pooled connection the database had already closed is
    // sent again: the pool drops the dead client, and there are at most `poolMax` of them.
    for (let attempt = 1; ; attempt += 1) {
      try {
        return (await this.#pool.query<Row>(query)).rows;
      } catch (error) {
        if (attempt <= this.#settings.poolMax && isStaleConnection(error)) continue;
        throw translatePostgresError(error);
      }
    }
  }

  /** Commits one batch (called by the queue); one result per plant, in order. */
  async #commitPlants(plants: readonly NewPlant[]): Promise<ItemResult<CreateOutcome>[]> {
    const results: (ItemResult<CreateOutcome> | undefined)[] = plants.map((plant) => {
      const problem = rowProblem(plant);
      return problem === undefined ? undefined : { ok: false, error: problem };
    });
    // The first valid plant of each id is the one inserted; the others compare with the winner.
    const first = new Map<bigint, NewPlant>();
    plants.forEach((plant, index) => {
      if (results[index] === undefined && !first.has(plant.id)) first.set(plant.id, plant);
    });
    const candidates = [...first.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    let inserted: { created: Set<bigint>; failed: Map<bigint, unknown> };
    try {
      inserted = await this.#insertCandidates(candidates);
    } catch (error) {
      if (error instanceof StoreUnavailableError) this.#readiness.noteWrite(error);
      throw error;
    }
    if (candidates.length > 0) this.#readiness.noteWrite();

    const existing = new Map<bigint, PlantRow | Error>();
    const notInserted = candidates.filter(
      (plant) => !inserted.created.has(plant.id) && !inserted.failed.has(plant.id),
    );
    if (notInserted.length > 0) {
      try {
        const rows = await this.#query<PlantRow>(SELECT_MANY, [
          notInserted.map((plant) => int64Param(plant.id)),
        ]);
        for (const row of rows) existing.set(row.id, row);
      } catch (error) {
        // The created plants are committed; only the ones that still need a look fail.
        const failure = asError(translatePostgresError(error));
        for (const plant of notInserted) existing.set(plant.id, failure);
      }
    }

    return plants.map((plant, index): ItemResult<CreateOutcome> => {
      const invalid = results[index];
      if (invalid !== undefined) return invalid;
      const failure = inserted.failed.get(plant.id);
      if (failure !== undefined) return { ok: false, error: failure };
      const winner = first.get(plant.id);
      if (inserted.created.has(plant.id) && winner !== undefined) {
        if (winner === plant) return { ok: true, value: 'created' };
        return { ok: true, value: samePlant(winner, plant) ? 'replayed' : 'conflict' };
      }
      const row = existing.get(plant.id);
      if (row instanceof Error) return { ok: false, error: row };
      if (row === undefined) {
        return { ok: false, error: new Error(`Plant ${plant.id} was neither inserted nor found`) };
      }
      return { ok: true, value: samePlant(storedPlant(row), plant) ? 'replayed' : 'conflict' };
    });
  }

  /**
   * Inserts the candidates (distinct ids, in id order) with one statement. When that
   * statement fails for a reason other than the database being unreachable (a row the
   * database refuses), each candidate is inserted alone, so only the bad row fails.
   */
  async #insertCandidates(
    candidates: readonly NewPlant[],
  ): Promise<{ created: Set<bigint>; failed: Map<bigint, unknown> }> {
    const created = new Set<bigint>();
    const failed = new Map<bigint, unknown>();
    if (candidates.length === 0) return { created, failed };
    try {
      const rows = await this.#query<{ id: bigint }>(INSERT_BATCH, [
        candidates.map((plant) => int64Param(plant.id)),
        candidates.map((plant) => plant.name),
        candidates.map((plant) => plant.tag ?? null),
      ]);
      for (const row of rows) created.add(row.id);
      return { created, failed };
    } catch (error) {
      if (error instanceof StoreUnavailableError) throw error;
    }
    for (const plant of candidates) {
      try {
        const rows = await this.#query<{ id: bigint }>(INSERT_ONE, [
          int64Param(plant.id),
          plant.name,
          plant.tag ?? null,
        ]);
        if (rows.length === 1) created.add(plant.id);
      } catch (error) {
        if (error instanceof StoreUnavailableError) throw error;
        failed.set(plant.id, error);
      }
    }
    return { created, failed };
  }
}

/** Why the database could not store `plant` as given, checked before sending it. */
function rowProblem(plant: NewPlant): Error | undefined {
  const { id, name, tag } = plant as { id: unknown; name: unknown; tag?: unknown };
  if (typeof id !== 'bigint' || id < INT64_MIN || id > INT64_MAX) {
    return new RangeError(`id must be a bigint from ${INT64_MIN} to ${INT64_MAX}`);
  }
  if (typeof name !== 'string') return new TypeError('name must be a string');
  if (tag !== undefined && typeof tag !== 'string') {
    return new TypeError('tag must be a string when present');
  }
  for (const text of tag === undefined ? [name] : [name, tag]) {
    // PostgreSQL text cannot hold NUL, and a lone surrogate would be stored as U+FFFD.
    if (text.includes('\u0000') || !text.isWellFormed()) {
      return new RangeError('name and tag must be well-formed Unicode without NUL characters');
    }
  }
  return undefined;
}

function samePlant(a: Pick<NewPlant, 'name' | 'tag'>, b: Pick<NewPlant, 'name' | 'tag'>): boolean {
  return a.name === b.name && (a.tag ?? null) === (b.tag ?? null);
}

/** A bigint parameter as its decimal text: exact, whatever pg does with numbers. */
function int64Param(id: bigint): string {
  return id.toString();
}

function typeParser(oid: number, format?: string): unknown {
  if (oid === INT8_OID && format !== 'binary') return (value: string) => BigInt(value);
  return format === 'binary'
    ? pg.types.getTypeParser(oid, 'binary')
    : pg.types.getTypeParser(oid, 'text');
}

function describe(error: unknown): string {
  if (error instanceof AggregateError && error.message === '') {
    return error.errors.map(describe).join('; ') || 'AggregateError';
  }
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    const message = error.message || error.name;
    return typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
  }
  return String(error);
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

const CLOSED_CAUSE: NotReadyCause = {
  code: 'CLOSED',
  message: 'The plant store is closed',
  action: 'The server is shutting down.',
};

/** SQLSTATE (or errno) of `error` or of the first error it wraps that has one. */
function postgresCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 10; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return undefined;
}

/**
 * Why a write to the PostgreSQL store failed (its SQLSTATE, or the socket error), with what
 * the operator should do about it.
 *
 * @example
 * describePostgresFailure(error); // { code: '53100', message: …, action: 'Free disk space …' }
 */
export function describePostgresFailure(error: unknown): NotReadyCause {
  const code = postgresCode(error) ?? 'UNAVAILABLE';
  const message = `PostgreSQL cannot commit: ${error instanceof Error ? error.message : String(error)}`;
  const action = (text: string) => ({ code, message, action: text });
  if (code === '53100') return action('Free disk space on the PostgreSQL server.');
  if (code === '25006') {
    return action(
      'The database is read-only (a standby, or default_transaction_read_only): point DATABASE_URL at the primary or make the database writable.',
    );
  }
  if (code === '42501') return action("Grant the server's role INSERT on the plants table.");
  if (code.startsWith('28')) return action('Fix the credentials in DATABASE_URL (login refused).');
  if (code.startsWith('53')) {
    return action('PostgreSQL is out of resources (connections, memory): check its limits.');
  }
  if (code.startsWith('57P') || code.startsWith('08') || code.startsWith('E')) {
    return action(
      'Check that PostgreSQL is running and reachable from this host; the server is ready again once a write succeeds.',
    );
  }
  return action(
    'See the error in the PostgreSQL log; the server is ready again once a write succeeds.',
  );
}

function closedError(): StoreUnavailableError {
  return new StoreUnavailableError('The plant store is closed');
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
