import { isIP } from 'node:net';
import bytes from 'bytes';
import { z } from 'zod';

/** Defaults of the PG_* settings, also the pool factory's (here: config.ts must not load `pg`). */
export const POSTGRES_DEFAULTS = {
  poolMax: 10,
  connectTimeoutMs: 2000,
  statementTimeoutMs: 5000,
} as const;

/** The values NODE_ENV may take; unset means development. */
const NODE_ENVS = ['development', 'test', 'production'] as const;

/** The longest any timer setting may ask for: one day, so sums of them stay far below 2^31−1 ms. */
export const MAX_TIMER_MS = 86_400_000;

/**
 * Every numeric variable: decimal digits only, from `min` to `max` (docs/operations.md), in
 * `unit` when it has one. A timer in seconds is bounded so that its milliseconds stay within
 * MAX_TIMER_MS, and every timer (and every sum the code makes of two) within 2^31−1 ms.
 */
export const NUMERIC_VARIABLES = {
  PORT: { min: 0, max: 65_535 },
  METRICS_PORT: { min: 0, max: 65_535 },
  PG_POOL_MAX: { min: 1, max: 1_000 },
  PG_CONNECT_TIMEOUT_MS: { min: 1, max: MAX_TIMER_MS, unit: 'milliseconds' },
  PG_STATEMENT_TIMEOUT_MS: { min: 1, max: MAX_TIMER_MS, unit: 'milliseconds' },
  PG_STARTUP_WAIT_MS: { min: 0, max: MAX_TIMER_MS, unit: 'milliseconds' },
  RATE_LIMIT_PER_SECOND: { min: 0, max: 1_000_000 },
  RATE_LIMIT_BURST: { min: 1, max: 1_000_000 },
  AUTH_FAILURES_PER_MINUTE: { min: 0, max: 1_000_000 },
  KEEP_ALIVE_TIMEOUT_SECONDS: { min: 1, max: MAX_TIMER_MS / 1000, unit: 'seconds' },
  MAX_CONNECTIONS: { min: 0, max: 1_000_000 },
  SHUTDOWN_DELAY_MS: { min: 0, max: MAX_TIMER_MS, unit: 'milliseconds' },
  WEB_CONCURRENCY: { min: 1, max: 256 },
} as const satisfies Record<string, NumberRange>;

interface NumberRange {
  readonly min: number;
  readonly max: number;
  readonly unit?: string;
}

/** The largest BODY_LIMIT: 16 MiB (a plant is well under 1 KiB). */
export const MAX_BODY_LIMIT_BYTES = 16 * 1024 * 1024;

/** The environment variables the server reads, with their defaults (docs/operations.md). */
const Env = z.object({
  NODE_ENV: oneOf(NODE_ENVS, '(unset means development)').default('development'),
  PORT: integer('PORT').default(3000),
  HOST: nonEmpty().default('127.0.0.1'),
  DATABASE_URL: nonEmpty().default('./data/plants.db'),
  PLANT_STORE_TOKENS: commaList(
    z
      .string()
      .min(16, 'each token must be at least 16 characters')
      .regex(/^[A-Za-z0-9\-._~+/]+=*$/, 'each token must use only A-Z a-z 0-9 - . _ ~ + / ='),
  ),
  BODY_LIMIT: size(MAX_BODY_LIMIT_BYTES).default(65_536),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DURABILITY: oneOf(['full', 'normal']).default('full'),
  PG_POOL_MAX: integer('PG_POOL_MAX').default(POSTGRES_DEFAULTS.poolMax),
  PG_CONNECT_TIMEOUT_MS: integer('PG_CONNECT_TIMEOUT_MS').default(
    POSTGRES_DEFAULTS.connectTimeoutMs,
  ),
  PG_STATEMENT_TIMEOUT_MS: integer('PG_STATEMENT_TIMEOUT_MS').default(
    POSTGRES_DEFAULTS.statementTimeoutMs,
  ),
  PG_STARTUP_WAIT_MS: integer('PG_STARTUP_WAIT_MS').default(0),
  METRICS_PORT: integer('METRICS_PORT').optional(),
  METRICS_HOST: nonEmpty().default('127.0.0.1'),
  RATE_LIMIT_PER_SECOND: integer('RATE_LIMIT_PER_SECOND').default(100),
  RATE_LIMIT_BURST: integer('RATE_LIMIT_BURST').default(200),
  AUTH_FAILURES_PER_MINUTE: integer('AUTH_FAILURES_PER_MINUTE').default(30),
  TRUST_PROXY: commaList(
    z
      .string()
      .refine(
        isProxyAddress,
        'each entry must be an IP address (127.0.0.1, ::1), a network (10.0.0.0/8, fd00::/8) or one of loopback, linklocal, uniquelocal',
      ),
  ),
  CORS_ORIGINS: commaList(
    z
      .string()
      .refine(
        isOrigin,
        'each origin must be scheme://host[:port], without a path or a trailing slash',
      ),
  ),
  KEEP_ALIVE_TIMEOUT_SECONDS: integer('KEEP_ALIVE_TIMEOUT_SECONDS').default(65),
  MAX_CONNECTIONS: integer('MAX_CONNECTIONS').default(900),
  SHUTDOWN_DELAY_MS: integer('SHUTDOWN_DELAY_MS').default(0),
  WEB_CONCURRENCY: integer('WEB_CONCURRENCY').default(1),
});

/** A value as an error message shows it: quoted (spaces and emptiness visible), and short. */
function shown(value: unknown): string {
  const text = String(value);
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

/** A non-empty string. */
function nonEmpty() {
  return z.string().min(1, 'must not be empty');
}

/** One of `values`; anything else is refused naming them all. */
function oneOf<const Values extends readonly [string, ...string[]]>(values: Values, note = '') {
  const accepted = `${values.join(', ')}${note ? ` ${note}` : ''}`;
  return z.enum(values, { error: (issue) => `${shown(issue.input)} is not one of ${accepted}` });
}

/**
 * The whole number in decimal digits that NUMERIC_VARIABLES allows for `name`, and nothing else
 * (no sign, fraction, exponent, hex, spaces or empty value): what Number() would also accept is
 * refused, naming the value and the range.
 */
function integer(name: keyof typeof NUMERIC_VARIABLES) {
  const range: NumberRange = NUMERIC_VARIABLES[name];
  const what = range.unit ? `a whole number of ${range.unit}` : 'a whole number';
  const expected = `${what} from ${range.min} to ${range.max} (decimal digits only)`;
  return z.string().transform((value, ctx) => {
    const parsed = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
    if (parsed >= range.min && parsed <= range.max) return parsed;
    ctx.addIssue({ code: 'custom', message: `${shown(value)} is not ${expected}` });
    return z.NEVER;
  });
}

/** A size in bytes, 1 to `max`: digits, optionally followed by b, kb or mb (1024-based). */
function size(max: number) {
  const expected = `a size from 1 byte to ${bytes.format(max)}: digits, optionally followed by kb or mb (65536, 64kb, 1mb)`;
  return z.string().transform((value, ctx) => {
    const parsed = /^[0-9]+(?:b|kb|mb)?$/i.test(value) ? bytes.parse(value) : null;
    if (parsed !== null && parsed >= 1 && parsed <= max) return parsed;
    ctx.addIssue({ code: 'custom', message: `${shown(value)} is not ${expected}` });
    return z.NEVER;
  });
}

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

/**
 * A trusted proxy as TRUST_PROXY takes it: an IP address in its usual form, a network
 * (address/prefix length, 1 or more) or one of proxy-addr's named ranges. Stricter than
 * proxy-addr itself, which would read `1` (meant as a hop count) as the address 0.0.0.1.
 */
function isProxyAddress(value: string): boolean {
  if (['loopback', 'linklocal', 'uniquelocal'].includes(value)) return true;
  const [address = '', prefix, ...rest] = value.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  const bits = /^[0-9]{1,3}$/.test(prefix) ? Number(prefix) : 0;
  return bits >= 1 && bits <= (family === 4 ? 32 : 128);
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
  /**
   * TRUST_PROXY: the addresses and networks of the reverse proxies in front; `X-Forwarded-For`
   * is read only from a peer among them (see `limits/key.ts`). Empty: the socket's peer is the client.
   */
  readonly trustProxy: readonly string[];
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
  if (env.TRUST_PROXY_HOPS !== undefined) {
    // Counting hops trusted X-Forwarded-For from whoever reached the port; TRUST_PROXY trusts
    // it only from the proxies' own addresses. Ignoring the old setting would silently make
    // every client behind the proxy share the proxy's address.
    throw new ConfigError(
      'Invalid configuration: TRUST_PROXY_HOPS is no longer read: set TRUST_PROXY to the ' +
        'addresses or networks of your reverse proxies (e.g. TRUST_PROXY=127.0.0.1 for a proxy ' +
        'on this machine), and remove TRUST_PROXY_HOPS',
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
    trustProxy: values.TRUST_PROXY,
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
