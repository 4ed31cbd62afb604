import bytes from 'bytes';
import { z } from 'zod';

/** Defaults of the PG_* settings, also the pool factory's (here: config.ts must not load `pg`). */
export const POSTGRES_DEFAULTS = {
  poolMax: 10,
  connectTimeoutMs: 2000,
  statementTimeoutMs: 5000,
} as const;

/** Most HTTP worker processes WEB_CONCURRENCY may ask for. */
const MAX_WEB_CONCURRENCY = 256;

/** The environment variables the server reads, with their defaults (docs/operations.md). */
const Env = z.object({
  NODE_ENV: z.string().default('development'),
  PORT: port().default(3000),
  HOST: z.string().min(1, 'must not be empty').default('127.0.0.1'),
  DATABASE_URL: z.string().min(1, 'must not be empty').default('./data/plants.db'),
  PLANT_STORE_TOKENS: commaList(
    z
      .string()
      .min(16, 'each token must be at least 16 characters')
      .regex(/^[A-Za-z0-9\-._~+/]+=*$/, 'each token must use only A-Z a-z 0-9 - . _ ~ + / ='),
  ),
  BODY_LIMIT: z
    .string()
    .default('64kb')
    .transform((value, ctx) => {
      const parsed = bytes.parse(value);
      if (parsed === null || !Number.isInteger(parsed) || parsed < 1) {
        ctx.addIssue({ code: 'custom', message: 'must be a size such as 65536, 64kb or 1mb' });
        return z.NEVER;
      }
      return parsed;
    }),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DURABILITY: z.enum(['full', 'normal']).default('full'),
  PG_POOL_MAX: count(1).default(POSTGRES_DEFAULTS.poolMax),
  PG_CONNECT_TIMEOUT_MS: count(1, 'at least 1 (milliseconds)').default(
    POSTGRES_DEFAULTS.connectTimeoutMs,
  ),
  PG_STATEMENT_TIMEOUT_MS: count(1, 'at least 1 (milliseconds)').default(
    POSTGRES_DEFAULTS.statementTimeoutMs,
  ),
  PG_STARTUP_WAIT_MS: count(0, '0 or more (milliseconds)').default(0),
  METRICS_PORT: port().optional(),
  METRICS_HOST: z.string().min(1, 'must not be empty').default('127.0.0.1'),
  RATE_LIMIT_PER_SECOND: count().default(100),
  RATE_LIMIT_BURST: count().min(1, 'must be at least 1').default(200),
  AUTH_FAILURES_PER_MINUTE: count().default(30),
  TRUST_PROXY_HOPS: count(0, '0..10').max(10, 'must be 0..10').default(0),
  CORS_ORIGINS: commaList(
    z
      .string()
      .refine(
        isOrigin,
        'each origin must be scheme://host[:port], without a path or a trailing slash',
      ),
  ),
  KEEP_ALIVE_TIMEOUT_SECONDS: count(1, 'at least 1 (seconds)').default(65),
  MAX_CONNECTIONS: count(0, '0 (no cap) or more').default(900),
  SHUTDOWN_DELAY_MS: count(0, '0 or more (milliseconds)').default(0),
  WEB_CONCURRENCY: count(1)
    .max(MAX_WEB_CONCURRENCY, `must be 1..${MAX_WEB_CONCURRENCY}`)
    .default(1),
});

/** A comma-separated list (default none): items trimmed, empty ones dropped, each checked by `item`. */
function commaList(item: z.ZodType<string, string>) {
  return z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((part) => part.trim())
        .filter((part) => part !== ''),
    )
    .pipe(z.array(item));
}

/** A whole number ≥ `min`; anything else is refused in `range`'s words, not zod's "received NaN". */
function count(min = 0, range = min === 0 ? '0 or more' : `at least ${min}`) {
  const whole = `must be a whole number, ${range}`;
  return z.coerce.number({ error: whole }).int(whole).min(min, `must be ${range}`);
}

/** A TCP port, 0 (any free port) to 65535. */
function port() {
  return count(0, '0..65535').max(65535, 'must be 0..65535');
}

/** `https://app.example.com` or `http://localhost:5173`: exactly what browsers send as Origin. */
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
  } catch {
    return false;
  }
}

/** The names of every environment variable the server reads (docs/operations.md lists them in a table). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(Env.shape);

export interface Config {
  readonly production: boolean;
  readonly port: number;
  readonly host: string;
  readonly databaseUrl: string;
  /** PLANT_STORE_TOKENS; may be empty (see `developmentToken`). */
  readonly tokens: readonly string[];
  /** No token configured outside production: the development token in the data directory is accepted. */
  readonly developmentToken: boolean;
  readonly bodyLimitBytes: number;
  readonly logLevel: z.output<typeof Env>['LOG_LEVEL'];
  readonly durability: 'full' | 'normal';
  readonly postgres: PostgresConfig;
  /** Where `GET /metrics` is served (its own listener); absent when METRICS_PORT is unset. */
  readonly metrics?: { readonly port: number; readonly host: string };
  readonly rateLimit: RateLimitConfig;
  readonly trustProxyHops: number;
  /** Browser origins allowed by CORS; empty = CORS off. */
  readonly corsOrigins: readonly string[];
  readonly keepAliveTimeoutMs: number;
  /** Most open connections per process; 0 = no cap. */
  readonly maxConnections: number;
  readonly shutdownDelayMs: number;
  /** HTTP worker processes: more than 1 runs a cluster (see cluster.ts). */
  readonly webConcurrency: number;
}

/** RATE_LIMIT_PER_SECOND, RATE_LIMIT_BURST, AUTH_FAILURES_PER_MINUTE; 0 turns a limit off. */
export interface RateLimitConfig {
  readonly perSecond: number;
  readonly burst: number;
  readonly authFailuresPerMinute: number;
}

/** PG_POOL_MAX, PG_CONNECT_TIMEOUT_MS, PG_STATEMENT_TIMEOUT_MS, PG_STARTUP_WAIT_MS. */
export interface PostgresConfig {
  readonly poolMax: number;
  readonly connectTimeoutMs: number;
  readonly statementTimeoutMs: number;
  readonly startupWaitMs: number;
}

/** A start-up failure the operator can fix: one line saying what failed, why and what to do. */
export class StartupError extends Error {
  override readonly name: string = 'StartupError';
}

/** A configuration the server refuses to start with; the message names every problem. */
export class ConfigError extends StartupError {
  override readonly name = 'ConfigError';
}

/** A production start with no credential to accept (no PLANT_STORE_TOKENS, no active managed token). */
export const NO_CREDENTIAL_MESSAGE =
  'Invalid configuration: NODE_ENV=production needs a credential to accept: set PLANT_STORE_TOKENS ' +
  '(comma-separated bearer tokens), or issue a managed token in this database first with ' +
  '`plant-store tokens create --name <consumer>` (node dist/cli.js tokens create …, same DATABASE_URL)';

/**
 * Reads and validates the configuration: the one place the environment is read.
 *
 * @example
 * const config = loadConfig({ PORT: '8080', PLANT_STORE_TOKENS: 'a-long-secret-token-1' });
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const values = parseEnv(Env, env);
  if (env.RATE_LIMIT_PER_MINUTE !== undefined) {
    // A fixed one-minute window made a client over it wait up to a minute; its replacement is
    // a burst plus a rate per second. Ignoring the old setting would silently change a limit.
    throw new ConfigError(
      'Invalid configuration: RATE_LIMIT_PER_MINUTE is no longer read: set RATE_LIMIT_PER_SECOND ' +
        '(sustained requests per second per credential, default 100) and RATE_LIMIT_BURST ' +
        '(requests at once, default 200) instead, and remove RATE_LIMIT_PER_MINUTE',
    );
  }
  if (values.METRICS_PORT === values.PORT && values.PORT !== 0) {
    throw new ConfigError(
      'Invalid configuration: METRICS_PORT: must differ from PORT (metrics have their own listener)',
    );
  }
  const production = values.NODE_ENV === 'production';
  const tokens: readonly string[] = values.PLANT_STORE_TOKENS;
  return {
    production,
    port: values.PORT,
    host: values.HOST,
    databaseUrl: values.DATABASE_URL,
    tokens,
    developmentToken: !production && tokens.length === 0,
    bodyLimitBytes: values.BODY_LIMIT,
    logLevel: values.LOG_LEVEL,
    durability: values.DURABILITY,
    postgres: postgresConfig(values),
    ...(values.METRICS_PORT === undefined
      ? {}
      : { metrics: { port: values.METRICS_PORT, host: values.METRICS_HOST } }),
    rateLimit: {
      perSecond: values.RATE_LIMIT_PER_SECOND,
      burst: values.RATE_LIMIT_BURST,
      authFailuresPerMinute: values.AUTH_FAILURES_PER_MINUTE,
    },
    trustProxyHops: values.TRUST_PROXY_HOPS,
    corsOrigins: values.CORS_ORIGINS,
    keepAliveTimeoutMs: values.KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
    maxConnections: values.MAX_CONNECTIONS,
    shutdownDelayMs: values.SHUTDOWN_DELAY_MS,
    webConcurrency: values.WEB_CONCURRENCY,
  };
}

/** The PG_* variables as `Config['postgres']`. */
function postgresConfig(
  values: Pick<
    z.output<typeof Env>,
    'PG_POOL_MAX' | 'PG_CONNECT_TIMEOUT_MS' | 'PG_STATEMENT_TIMEOUT_MS' | 'PG_STARTUP_WAIT_MS'
  >,
): PostgresConfig {
  return {
    poolMax: values.PG_POOL_MAX,
    connectTimeoutMs: values.PG_CONNECT_TIMEOUT_MS,
    statementTimeoutMs: values.PG_STATEMENT_TIMEOUT_MS,
    startupWaitMs: values.PG_STARTUP_WAIT_MS,
  };
}

/** The part of the configuration that names the store: what the command-line tool needs. */
export interface StoreConfig {
  readonly databaseUrl: string;
  readonly postgres: PostgresConfig;
}

/**
 * Reads only DATABASE_URL and the PG_* variables, for the `plant-store` command-line tool: no
 * token is required or generated, and other server settings are not checked.
 *
 * @example
 * const { databaseUrl, postgres } = loadStoreConfig({ DATABASE_URL: 'postgres://db/plants' });
 */
export function loadStoreConfig(
  env: Record<string, string | undefined> = process.env,
): StoreConfig {
  const schema = Env.pick({
    DATABASE_URL: true,
    PG_POOL_MAX: true,
    PG_CONNECT_TIMEOUT_MS: true,
    PG_STATEMENT_TIMEOUT_MS: true,
    PG_STARTUP_WAIT_MS: true,
  });
  const values = parseEnv(schema, env);
  return { databaseUrl: values.DATABASE_URL, postgres: postgresConfig(values) };
}

/** `env` parsed by `schema`, or a ConfigError naming every variable that is wrong and why. */
function parseEnv<Schema extends z.ZodType>(
  schema: Schema,
  env: Record<string, string | undefined>,
): z.output<Schema> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
}
