import { setTimeout as sleep } from 'node:timers/promises';
import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import { type DatabaseLocation, type PostgresConfig, StartupError } from '../config.ts';
import type { Durability } from './plant-store.ts';
import {
  describeError,
  isPostgresLoginRefused,
  isPostgresUnavailable,
  postgresOpenError,
} from './postgres/errors.ts';
import { migratePostgres } from './postgres/migrations.ts';
import { openDatabase } from './sqlite/open-database.ts';

/** The process's one handle on its database, shared by the plants, the tokens and the limits. */
export type DatabaseHandle = SqliteHandle | PostgresHandle;

interface SqliteHandle {
  readonly kind: 'sqlite';
  readonly filename: string;
  readonly db: BetterSqlite3.Database;
  close(): Promise<void>;
}

export interface PostgresHandle {
  readonly kind: 'postgres';
  readonly url: string;
  readonly pool: pg.Pool;
  /** `queryTimeoutMs` (statement + connect) is when the client gives up on a silent network. */
  readonly settings: Omit<PostgresConfig, 'startupWaitMs'> & { readonly queryTimeoutMs: number };
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  readonly durability?: Durability;
  readonly postgres?: Partial<PostgresConfig>;
  /** Told about an idle pooled connection that broke, and each wait at start. */
  readonly onError?: (error: Error, context: string) => void;
}

/** Opens the database migrated and checked; a failure is one StartupError line. */
export async function openDatabaseHandle(
  location: DatabaseLocation,
  options: OpenDatabaseOptions = {},
): Promise<DatabaseHandle> {
  if (location.kind === 'sqlite') {
    const db = openDatabase(location.filename, options);
    return { kind: 'sqlite', filename: location.filename, db, close: async () => void db.close() };
  }
  return openPostgres(location.url, options);
}

export async function openPostgres(
  url: string,
  options: OpenDatabaseOptions,
): Promise<PostgresHandle> {
  const {
    poolMax = 10,
    connectTimeoutMs = 2000,
    statementTimeoutMs = 5000,
  } = options.postgres ?? {};
  const queryTimeoutMs = statementTimeoutMs + connectTimeoutMs;
  const settings = { poolMax, connectTimeoutMs, statementTimeoutMs, queryTimeoutMs };
  // A SQLite deployment never loads pg.
  const { default: pgModule } = await import('pg');
  // int8 as an exact bigint (pg's default is a string).
  const types = new pgModule.TypeOverrides();
  types.setTypeParser(pgModule.types.builtins.INT8, BigInt);
  const pool = new pgModule.Pool({
    connectionString: url,
    max: poolMax,
    connectionTimeoutMillis: connectTimeoutMs,
    statement_timeout: statementTimeoutMs,
    query_timeout: queryTimeoutMs,
    lock_timeout: statementTimeoutMs,
    idle_in_transaction_session_timeout: statementTimeoutMs,
    keepAlive: true,
    idleTimeoutMillis: 30_000,
    application_name: 'plant-store',
    types,
    // Not the startup `options` parameter: a URL's own `options` would replace it.
    onConnect:
      options.durability === 'normal'
        ? async (client: pg.ClientBase) => void (await client.query('SET synchronous_commit = off'))
        : undefined,
  });
  const onError = options.onError ?? (() => undefined);
  pool.on('error', (error) => onError(error, 'idle PostgreSQL connection failed'));
  const deadline = Date.now() + (options.postgres?.startupWaitMs ?? 0);
  for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
    try {
      await checkPostgres(pool, options.durability ?? 'full');
      await migratePostgres(pool);
      return { kind: 'postgres', url, pool, settings, close: () => pool.end() };
    } catch (error) {
      const remaining = deadline - Date.now();
      if (remaining <= 0 || !isPostgresUnavailable(error) || isPostgresLoginRefused(error)) {
        await pool.end().catch(() => undefined);
        throw postgresOpenError(error, url);
      }
      onError(new Error(describeError(error)), 'waiting for PostgreSQL');
      await sleep(Math.min(delay, remaining));
    }
  }
}

/** Refuses a database that would lose or mangle acknowledged plants. */
async function checkPostgres(pool: pg.Pool, durability: Durability): Promise<void> {
  const { rows } = await pool.query<Record<string, string>>(
    `SELECT current_setting('synchronous_commit') AS sync, current_database() AS db,
       current_setting('server_encoding') AS server, current_setting('client_encoding') AS client`,
  );
  const { sync, db = '', server = '', client = '' } = rows[0] ?? {};
  if (durability !== 'normal' && sync === 'off') {
    throw new StartupError(
      'the server runs with synchronous_commit = off, so a created plant could be lost when ' +
        'the database crashes; turn it on for this database or role, or set DURABILITY=normal to accept that',
    );
  }
  for (const [what, encoding] of Object.entries({ server, client })) {
    if (encoding.toUpperCase() === 'UTF8') continue;
    const fix =
      what === 'server'
        ? `create the database with ENCODING 'UTF8' (CREATE DATABASE ${db}_utf8 ENCODING 'UTF8' TEMPLATE template0), move the data (pg_dump | psql) and point DATABASE_URL at it`
        : "remove client_encoding from DATABASE_URL, PGCLIENTENCODING and the role's settings (ALTER ROLE … RESET client_encoding)";
    throw new StartupError(
      `the database ${db} uses the ${what} encoding ${encoding}, which cannot hold every valid plant name (e.g. "fern 🌱"); ${fix}`,
    );
  }
}
