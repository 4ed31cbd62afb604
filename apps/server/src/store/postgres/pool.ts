import pg from 'pg';
import { POSTGRES_DEFAULTS, type PostgresConfig } from '../../config.ts';

/**
 * The PG_* settings (config.ts's `postgres`) that every PostgreSQL pool of the server is
 * built from, and the hook told about pooled connections that fail while idle. Each field
 * is optional: a missing one takes the same default as its environment variable.
 */
export interface PostgresPoolConfig
  extends Partial<Pick<PostgresConfig, 'poolMax' | 'connectTimeoutMs' | 'statementTimeoutMs'>> {
  /**
   * Told about an idle pooled connection that broke (database restarted, network cut): the
   * pool drops it and the next query connects anew. Default: ignored.
   */
  readonly onError?: (error: Error, context: string) => void;
}

/**
 * Which part of the server a pool serves. It names the sessions (`application_name`, seen
 * in `pg_stat_activity`) and caps the pool: the plant store may use `poolMax` connections,
 * the token store and the rate limits at most 2 each (never more than `poolMax`).
 */
export type PostgresPoolRole = 'plants' | 'tokens' | 'rate-limits';

/** Options of `createPostgresPool`. */
export interface PostgresPoolOptions extends PostgresPoolConfig {
  /** A `postgres://` or `postgresql://` URL (its query parameters are honoured). */
  readonly url: string;
  readonly role: PostgresPoolRole;
  /** Every session runs `SET synchronous_commit = off` before it is first used. */
  readonly synchronousCommitOff?: boolean;
  /** Type parsers of this pool only (pg's global parsers stay as they are). */
  readonly types?: pg.CustomTypesConfig;
}

/** The settings a pool was built with. */
export interface PostgresPoolSettings {
  /** Most connections of this pool (`poolMax`, capped by the role). */
  readonly poolMax: number;
  /** Longest wait for a connection: pool wait, TCP and login. */
  readonly connectTimeoutMs: number;
  /** The sessions' `statement_timeout`, `lock_timeout` and `idle_in_transaction_session_timeout`. */
  readonly statementTimeoutMs: number;
  /** When the client itself gives up on a query (a silent network): statement + connect timeout. */
  readonly queryTimeoutMs: number;
}

const ROLES: Record<PostgresPoolRole, { applicationName: string; maxConnections: number }> = {
  plants: { applicationName: 'plant-store', maxConnections: Number.POSITIVE_INFINITY },
  // Token lookups are cached and writes are rare; the rate limits sync once per interval.
  tokens: { applicationName: 'plant-store-tokens', maxConnections: 2 },
  'rate-limits': { applicationName: 'plant-store-rate-limit', maxConnections: 2 },
};

/**
 * The settings `createPostgresPool` would use for `role`: defaults filled in, the pool size
 * capped by the role, the client-side query timeout derived (config.ts validated them).
 *
 * @example
 * postgresPoolSettings({ connectTimeoutMs: 500 }, 'tokens');
 * // { poolMax: 2, connectTimeoutMs: 500, statementTimeoutMs: 5000, queryTimeoutMs: 5500 }
 */
export function postgresPoolSettings(
  config: PostgresPoolConfig,
  role: PostgresPoolRole,
): PostgresPoolSettings {
  const poolMax = config.poolMax ?? POSTGRES_DEFAULTS.poolMax;
  const connectTimeoutMs = config.connectTimeoutMs ?? POSTGRES_DEFAULTS.connectTimeoutMs;
  const statementTimeoutMs = config.statementTimeoutMs ?? POSTGRES_DEFAULTS.statementTimeoutMs;
  return {
    poolMax: Math.min(poolMax, ROLES[role].maxConnections),
    connectTimeoutMs,
    statementTimeoutMs,
    queryTimeoutMs: statementTimeoutMs + connectTimeoutMs,
  };
}

/**
 * Builds the `pg.Pool` of one part of the server from the PG_* settings: the connect
 * timeout bounds getting a connection (so an unreachable database is a quick 503, never a
 * hang), the statement timeout is the sessions' `statement_timeout`, `lock_timeout` and
 * `idle_in_transaction_session_timeout`, and the client gives up on a query the connect
 * timeout after that (a silent network). TCP keep-alive is on, idle connections close after
 * 30 s, and a connection that fails while idle goes to `onError` (without a listener, the
 * pool's 'error' event would crash the process). Does not connect: the first query does.
 *
 * @example
 * const { pool, settings } = createPostgresPool({ url, role: 'tokens', ...config.postgres });
 * await pool.query('SELECT 1');
 * await pool.end();
 */
export function createPostgresPool(options: PostgresPoolOptions): {
  pool: pg.Pool;
  settings: PostgresPoolSettings;
} {
  const settings = postgresPoolSettings(options, options.role);
  const { applicationName } = ROLES[options.role];
  const pool = new pg.Pool({
    connectionString: options.url,
    max: settings.poolMax,
    connectionTimeoutMillis: settings.connectTimeoutMs,
    statement_timeout: settings.statementTimeoutMs,
    query_timeout: settings.queryTimeoutMs,
    lock_timeout: settings.statementTimeoutMs,
    idle_in_transaction_session_timeout: settings.statementTimeoutMs,
    keepAlive: true,
    idleTimeoutMillis: 30_000,
    application_name: applicationName,
    ...(options.types ? { types: options.types } : {}),
    // Run before a new session is handed out. (Not the startup `options` parameter: a URL's
    // own `options`, e.g. a search_path, would replace it.)
    ...(options.synchronousCommitOff
      ? {
          onConnect: async (client: pg.ClientBase) => {
            await client.query('SET synchronous_commit = off');
          },
        }
      : {}),
  });
  const onError = options.onError ?? (() => undefined);
  pool.on('error', (error) =>
    onError(error, `idle PostgreSQL connection failed (${applicationName})`),
  );
  return { pool, settings };
}
