import type { Database, Statement } from 'better-sqlite3';
import {
  type RateLimiterLike,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterSQLite,
  RLWrapperTimeouts,
} from 'rate-limiter-flexible';
import { parseDatabaseUrl } from '../store/open-store.ts';
import { postgresCode } from '../store/postgres/errors.ts';
import { createPostgresPool, type PostgresPoolConfig } from '../store/postgres/pool.ts';
import { createPrivateFile } from '../store/private-files.ts';
import { openSqlite } from '../store/sqlite/driver.ts';
import { sqliteOpenError } from '../store/sqlite/errors.ts';
import { switchToWal } from '../store/sqlite/open-database.ts';

/** One limiter: `points` per fixed window of `duration` seconds, its keys prefixed. */
export interface LimiterShape {
  readonly keyPrefix: string;
  readonly points: number;
  readonly duration: number;
}

/** Where the counts of the limiters live: makes each limiter, and releases what it holds. */
export interface LimiterStore {
  limiter(shape: LimiterShape): Promise<RateLimiterLike>;
  close(): Promise<void>;
}

/** Counts in this process's memory (unit tests of the limits alone). */
export const memoryStore: LimiterStore = {
  limiter: async (shape) => new RateLimiterMemory(shape),
  close: async () => undefined,
};

/** The side file of a SQLite database that holds its limiters' counts: `plants.db-limits`. */
export const LIMITS_FILE_SUFFIX = '-limits';
/**
 * How long a decision waits for another process's write to the side file (better-sqlite3 is
 * synchronous: the event loop waits). Writes there take microseconds; past this the process
 * counts in its own memory for that decision.
 */
export const LIMITS_BUSY_TIMEOUT_MS = 250;
/** How often rows whose window ended an hour ago are deleted (as `clearExpiredByTimeout` does). */
const CLEAR_EXPIRED_EVERY_MS = 5 * 60_000;
const KEEP_EXPIRED_MS = 60 * 60_000;

/** RateLimiterSQLite's own sweep of ended windows (not in its type declarations). */
interface Expiring {
  clearExpired(nowMs: number): Promise<void>;
}

/**
 * Counts in a side file of the SQLite database (`<file>-limits`), shared by every process that
 * serves the file: separate processes (two units, a blue/green start) and cluster workers alike.
 * One table per limiter, one upsert in a transaction per decision (rate-limiter-flexible's
 * `RateLimiterSQLite` on better-sqlite3). A side file, not a table of the database: its commits
 * never wait for a plant commit's fsync, and need none (WAL, `synchronous=OFF`: counts are not
 * data; a power cut may lose the last ones). A spent key is refused from memory
 * (`inMemoryBlockOnConsumed`); while the file cannot be written, or another process holds it
 * longer than LIMITS_BUSY_TIMEOUT_MS, the process counts in its own memory (`insuranceLimiter`).
 */
export function sqliteStore(databaseFile: string): LimiterStore {
  const filename = `${databaseFile}${LIMITS_FILE_SUFFIX}`;
  let opened: Database | undefined;
  try {
    createPrivateFile(filename);
    opened = openSqlite(filename, { timeout: LIMITS_BUSY_TIMEOUT_MS });
    opened.pragma('synchronous = OFF'); // before the switch too: creating the file needs no fsync
    // Processes starting together may create the file together: the switch is retried (5 s).
    switchToWal(opened, 5_000);
    opened.pragma('synchronous = OFF');
    opened.pragma(`journal_size_limit = ${4 * 1024 * 1024}`);
  } catch (error) {
    opened?.close();
    throw sqliteOpenError(error, filename);
  }
  const db = opened;
  const client = preparedOnce(db);
  const limiters: Expiring[] = [];
  const sweep = setInterval(() => {
    for (const limiter of limiters) {
      limiter.clearExpired(Date.now() - KEEP_EXPIRED_MS).catch(() => undefined);
    }
  }, CLEAR_EXPIRED_EVERY_MS).unref();
  return {
    limiter: (shape) =>
      new Promise((resolve, reject) => {
        const limiter: RateLimiterSQLite & Expiring = new RateLimiterSQLite(
          {
            ...shape,
            storeClient: client,
            storeType: 'better-sqlite3',
            tableName: shape.keyPrefix,
            inMemoryBlockOnConsumed: shape.points,
            insuranceLimiter: new RateLimiterMemory(shape),
          },
          (error) => {
            if (error) return reject(sqliteOpenError(error, filename));
            limiters.push(limiter);
            resolve(limiter);
          },
        ) as RateLimiterSQLite & Expiring;
      }),
    close: async () => {
      clearInterval(sweep);
      db.close();
    },
  };
}

/**
 * The connection as RateLimiterSQLite uses it (`prepare`, `transaction`), each statement
 * prepared once: the limiter prepares its upsert on every decision, and better-sqlite3 does not
 * cache statements; preparing was half the limiter's CPU (28 → 17 µs a decision, measured).
 */
function preparedOnce(db: Database): Pick<Database, 'prepare' | 'transaction'> {
  const statements = new Map<string, Statement>();
  return {
    prepare: ((source: string) => {
      let statement = statements.get(source);
      if (statement === undefined) {
        statement = db.prepare(source);
        statements.set(source, statement);
      }
      return statement;
    }) as Database['prepare'],
    transaction: (fn) => db.transaction(fn),
  };
}

/**
 * Counts in PostgreSQL, shared by every instance on the database (a table per limiter, one
 * upsert per decision). A spent key is refused from memory (`inMemoryBlockOnConsumed`); while
 * the database fails or is slower than PG_CONNECT_TIMEOUT_MS (`RLWrapperTimeouts`), each
 * instance counts in its own memory (`insuranceLimiter`): precision lost, never a 500 or a hang.
 */
export function postgresStore(url: string, postgres: PostgresPoolConfig = {}): LimiterStore {
  const { pool, settings } = createPostgresPool({
    ...postgres,
    url,
    role: 'rate-limits',
    synchronousCommitOff: true,
  });
  const create = (shape: LimiterShape) =>
    new Promise<RateLimiterLike>((resolve, reject) => {
      const limiter = new RateLimiterPostgres(
        {
          ...shape,
          storeClient: pool,
          storeType: 'pool',
          inMemoryBlockOnConsumed: shape.points,
          insuranceLimiter: new RateLimiterMemory(shape),
        },
        (error) =>
          error
            ? reject(error)
            : resolve(new RLWrapperTimeouts({ limiter, timeoutMs: settings.connectTimeoutMs })),
      );
    });
  return {
    // Instances starting together may race on `CREATE TABLE IF NOT EXISTS` (42P07, 42710 or
    // 23505 from PostgreSQL): the table exists by then, so a second try succeeds.
    limiter: (shape) =>
      create(shape).catch((error: unknown) => {
        const code = postgresCode(error);
        if (code === '42P07' || code === '42710' || code === '23505') return create(shape);
        throw error;
      }),
    close: () => pool.end(),
  };
}

/**
 * The store that suits the database: PostgreSQL for a `postgres://` URL, else the SQLite file's
 * side file; either way shared by every process on the database.
 *
 * @example
 * const store = limiterStoreFor(config.databaseUrl, config.postgres);
 */
export function limiterStoreFor(
  databaseUrl: string,
  postgres: PostgresPoolConfig = {},
): LimiterStore {
  const location = parseDatabaseUrl(databaseUrl);
  if (location.kind === 'postgres') return postgresStore(location.url, postgres);
  return sqliteStore(location.filename);
}
