import pg from 'pg';
import { POSTGRES_DEFAULTS, type PostgresConfig } from '../../config.ts';

/**
 * The PG_* settings (config.ts's `postgres`) every PostgreSQL pool of the server is built from
 * (a missing one takes its environment variable's default), and the hook told about an idle
 * pooled connection that broke (the pool drops it; the next query connects anew).
 */
export interface PostgresPoolConfig
  extends Partial<Pick<PostgresConfig, 'poolMax' | 'connectTimeoutMs' | 'statementTimeoutMs'>> {
  readonly onError?: (error: Error, context: string) => void;
}

/**
 * The part of the server a pool serves names its sessions (`application_name`, seen in
 * `pg_stat_activity`) and caps it: token lookups are cached and writes rare, the rate limits
 * sync once per interval, so they get at most 2 connections each.
 */
const ROLES = {
  plants: { applicationName: 'plant-store', maxConnections: Number.POSITIVE_INFINITY },
  tokens: { applicationName: 'plant-store-tokens', maxConnections: 2 },
  'rate-limits': { applicationName: 'plant-store-rate-limit', maxConnections: 2 },
};

/**
 * The settings of a pool for `role` (config.ts validated them): `poolMax` capped by the role;
 * `connectTimeoutMs` bounds pool wait, TCP and login; `statementTimeoutMs` is the sessions'
 * statement, lock and idle-in-transaction timeout; `queryTimeoutMs` (their sum) is when the
 * client itself gives up on a query (a silent network).
 */
export function postgresPoolSettings(config: PostgresPoolConfig, role: keyof typeof ROLES) {
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

export type PostgresPoolSettings = ReturnType<typeof postgresPoolSettings>;

/**
 * Builds the `pg.Pool` of one part of the server: an unreachable database is a quick 503, never
 * a hang (see the timeouts above). A connection that fails while idle goes to `onError` (without
 * a listener, the pool's 'error' event would crash the process). The first query connects.
 */
export function createPostgresPool(
  options: PostgresPoolConfig & {
    readonly url: string;
    readonly role: keyof typeof ROLES;
    /** Every session runs `SET synchronous_commit = off` before it is first used. */
    readonly synchronousCommitOff?: boolean;
    /** Type parsers of this pool only. */
    readonly types?: pg.CustomTypesConfig;
  },
): { pool: pg.Pool; settings: PostgresPoolSettings } {
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
    types: options.types,
    // Run before a new session is handed out. (Not the startup `options` parameter: a URL's
    // own `options`, e.g. a search_path, would replace it.)
    onConnect: options.synchronousCommitOff
      ? async (client: pg.ClientBase) => {
          await client.query('SET synchronous_commit = off');
        }
      : undefined,
  });
  const onError = options.onError ?? (() => undefined);
  pool.on('error', (error) =>
    onError(error, `idle PostgreSQL connection failed (${applicationName})`),
  );
  return { pool, settings };
}
