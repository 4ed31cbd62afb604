import { isIP } from 'node:net';
import { fileURLToPath } from 'node:url';
import bytes from 'bytes';
import { z } from 'zod';

/** The longest any timer setting may ask for: one day, so sums of them stay far below 2^31−1 ms. */
export const MAX_TIMER_MS = 86_400_000;

/** The largest BODY_LIMIT: 16 MiB (a plant is well under 1 KiB). */
export const MAX_BODY_LIMIT_BYTES = 16 * 1024 * 1024;

/** The range of a numeric variable (docs/operations.md), kept beside it as its schema's meta. */
export interface NumberRange {
  readonly min: number;
  readonly max: number;
  readonly unit?: 'milliseconds' | 'seconds';
}
const PORT_RANGE = { min: 0, max: 65_535 } as const;
const MS = (min: number) => ({ min, max: MAX_TIMER_MS, unit: 'milliseconds' }) as const;
const COUNT = (min: number) => ({ min, max: 1_000_000 }) as const;

/**
 * The one registry of environment variables the server reads: each with its range, its default
 * and what it means (docs/operations.md lists them; a test keeps both in step). Every numeric
 * variable takes decimal digits only; a timer stays within MAX_TIMER_MS (a sum of two within
 * 2^31−1 ms).
 */
const Env = z.object({
  /** development (unset), test or production: production needs a credential to accept. */
  NODE_ENV: oneOf(['development', 'test', 'production'], '(unset means development)').default(
    'development',
  ),
  /** TCP port of the API (0: any free port). */
  PORT: integer(PORT_RANGE).default(3000),
  HOST: nonEmpty().default('127.0.0.1'),
  /** A SQLite file path or file: URL, or a postgres:// URL: parsed here, once. */
  DATABASE_URL: z
    .string()
    .default('./data/plants.db')
    .transform((url, ctx) => parseDatabase(url, ctx)),
  /** Comma-separated bearer tokens, named env#1, env#2, … in logs. */
  PLANT_STORE_TOKENS: commaList(
    z
      .string()
      .min(16, 'each token must be at least 16 characters')
      .regex(/^[A-Za-z0-9\-._~+/]+=*$/, 'each token must use only A-Z a-z 0-9 - . _ ~ + / ='),
  ),
  BODY_LIMIT: size(MAX_BODY_LIMIT_BYTES).default(65_536),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** full: every commit fsynced (survives power loss); normal: survives a process crash. */
  DURABILITY: oneOf(['full', 'normal']).default('full'),
  /** Most PostgreSQL connections of a process, all its parts together (plants, tokens, limits). */
  PG_POOL_MAX: integer({ min: 1, max: 1_000 }).default(10),
  /** Bounds pool wait, TCP connect and login. */
  PG_CONNECT_TIMEOUT_MS: integer(MS(1)).default(2000),
  /** The sessions' statement, lock and idle-in-transaction timeout. */
  PG_STATEMENT_TIMEOUT_MS: integer(MS(1)).default(5000),
  /** How long a start waits, retrying, for a PostgreSQL it cannot reach (0: fail at once). */
  PG_STARTUP_WAIT_MS: integer(MS(0)).default(0),
  /** Where GET /metrics is served, on a listener of its own; unset: no metrics. */
  METRICS_PORT: integer(PORT_RANGE).optional(),
  METRICS_HOST: nonEmpty().default('127.0.0.1'),
  /** Sustained requests per second per credential (0: off). */
  RATE_LIMIT_PER_SECOND: integer(COUNT(0)).default(100),
  /** Requests at once per credential. */
  RATE_LIMIT_BURST: integer(COUNT(1)).default(200),
  /** Refused credentials per minute per client address, then 429 (0: off). */
  AUTH_FAILURES_PER_MINUTE: integer(COUNT(0)).default(30),
  /** Requests per second per client address without a credential (/healthz, /docs, 404s…; 0: off). */
  ANONYMOUS_PER_SECOND: integer(COUNT(0)).default(20),
  /** Requests at once per client address without a credential. */
  ANONYMOUS_BURST: integer(COUNT(1)).default(100),
  /** Reverse proxies whose X-Forwarded-For is believed (see limits/key.ts). */
  TRUST_PROXY: commaList(
    z
      .string()
      .refine(
        isProxyAddress,
        'each entry must be an IP address (127.0.0.1, ::1), a network (10.0.0.0/8, fd00::/8) or one of loopback, linklocal, uniquelocal',
      ),
  ),
  /** Browser origins allowed by CORS; empty: CORS off. */
  CORS_ORIGINS: commaList(
    z
      .string()
      .refine(
        isOrigin,
        'each origin must be scheme://host[:port], without a path or a trailing slash',
      ),
  ),
  KEEP_ALIVE_TIMEOUT_SECONDS: integer({
    min: 1,
    max: MAX_TIMER_MS / 1000,
    unit: 'seconds',
  }).default(65),
  /** Most open connections per process (0: no cap). */
  MAX_CONNECTIONS: integer(COUNT(0)).default(900),
  SHUTDOWN_DELAY_MS: integer(MS(0)).default(0),
  /** HTTP worker processes: more than 1 runs a cluster (see cluster.ts). */
  WEB_CONCURRENCY: integer({ min: 1, max: 256 }).default(1),
});

/** The range of every numeric variable, read from the registry above (docs and tests use it). */
export function numericRanges(): Record<string, NumberRange> {
  const ranges: Record<string, NumberRange> = {};
  for (const [name, schema] of Object.entries(Env.shape)) {
    const inner = 'unwrap' in schema ? (schema.unwrap() as z.ZodType) : schema;
    const range = inner.meta()?.range as NumberRange | undefined;
    if (range) ranges[name] = range;
  }
  return ranges;
}

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
 * A whole number in decimal digits within `range`, and nothing else (no sign, fraction,
 * exponent, hex, spaces or empty value): refused naming the value and the range.
 */
function integer(range: NumberRange) {
  const what = range.unit ? `a whole number of ${range.unit}` : 'a whole number';
  const expected = `${what} from ${range.min} to ${range.max} (decimal digits only)`;
  return z
    .string()
    .transform((value, ctx) => {
      const parsed = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
      if (parsed >= range.min && parsed <= range.max) return parsed;
      ctx.addIssue({ code: 'custom', message: `${shown(value)} is not ${expected}` });
      return z.NEVER;
    })
    .meta({ range });
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

/** The store DATABASE_URL names: a SQLite file or a PostgreSQL URL; `shown` is safe to log. */
export type DatabaseLocation =
  | { readonly kind: 'sqlite'; readonly filename: string; readonly shown: string }
  | { readonly kind: 'postgres'; readonly url: string; readonly shown: string };

const ACCEPTED_FORMS =
  'a file path (data/plants.db, /var/lib/plants.db), a file: URL (file:./data/plants.db, ' +
  'file:///var/lib/plants.db) or a postgres:// / postgresql:// URL';

/**
 * DATABASE_URL as a DatabaseLocation, without touching the file system: a path (no scheme; a
 * single letter before ':' is a Windows drive) or a `file:` URL is a SQLite file,
 * `postgres:`/`postgresql:` a PostgreSQL URL; anything else is refused naming the accepted forms.
 */
export function parseDatabase(url: string, ctx?: z.RefinementCtx): DatabaseLocation {
  const refuse = (reason: string): never => {
    const masked = url.replace(/^([^:/?#]+:\/\/)[^/?#]*@/, '$1***@');
    const message = `Invalid database URL ${JSON.stringify(masked)}: ${reason}. Use ${ACCEPTED_FORMS}.`;
    if (!ctx) throw new ConfigError(message);
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  };
  if (url.trim() === '') return refuse('it is empty');
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]+):/.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined) return { kind: 'sqlite', filename: url, shown: url };
  if (scheme === 'postgres' || scheme === 'postgresql') {
    return { kind: 'postgres', url, shown: maskUrl(url) };
  }
  if (scheme !== 'file') return refuse(`the scheme "${scheme}:" is not supported`);
  if (url.includes('?') || url.includes('#')) {
    return refuse('query strings and fragments are not supported in file: URLs');
  }
  let filename: string;
  try {
    filename = url.toLowerCase().startsWith('file://')
      ? fileURLToPath(url)
      : decodeURIComponent(url.slice('file:'.length));
  } catch (error) {
    return refuse(error instanceof Error ? error.message : String(error));
  }
  if (filename === '') return refuse('it names no file');
  return { kind: 'sqlite', filename, shown: filename };
}

/** `url` safe to log: a `scheme://user:password@host` password and a `password` parameter → `***`. */
export function maskUrl(url: string): string {
  return url
    .replace(/^([^:/?#]+:\/\/[^:@/?#]*):[^@/?#]*@/, '$1:***@')
    .replace(/([?&]password=)[^&#]*/gi, '$1***');
}

/** The names of every environment variable the server reads (docs/operations.md lists them in a table). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(Env.shape);

export interface Config {
  readonly production: boolean;
  readonly port: number;
  readonly host: string;
  readonly database: DatabaseLocation;
  /** PLANT_STORE_TOKENS; may be empty (see `developmentToken`). */
  readonly tokens: readonly string[];
  /** No token configured outside production: the development token in the data directory is accepted. */
  readonly developmentToken: boolean;
  readonly bodyLimitBytes: number;
  readonly logLevel: z.output<typeof Env>['LOG_LEVEL'];
  readonly durability: 'full' | 'normal';
  readonly postgres: PostgresConfig;
  /** Absent when METRICS_PORT is unset. */
  readonly metrics?: { readonly port: number; readonly host: string };
  readonly rateLimit: RateLimitConfig;
  readonly trustProxy: readonly string[];
  readonly corsOrigins: readonly string[];
  readonly keepAliveTimeoutMs: number;
  readonly maxConnections: number;
  readonly shutdownDelayMs: number;
  readonly webConcurrency: number;
}

/** RATE_LIMIT_*, AUTH_FAILURES_PER_MINUTE, ANONYMOUS_*; 0 turns a limit off. */
export interface RateLimitConfig {
  readonly perSecond: number;
  readonly burst: number;
  readonly authFailuresPerMinute: number;
  /** Per client address, on requests without a credential; absent: off. */
  readonly anonymous?: { readonly perSecond: number; readonly burst: number };
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
    database: values.DATABASE_URL,
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
      ...(values.ANONYMOUS_PER_SECOND > 0
        ? { anonymous: { perSecond: values.ANONYMOUS_PER_SECOND, burst: values.ANONYMOUS_BURST } }
        : {}),
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
  readonly database: DatabaseLocation;
  readonly postgres: PostgresConfig;
}

/**
 * Reads only DATABASE_URL and the PG_* variables, for the `plant-store` command-line tool: no
 * token is required or generated, and other server settings are not checked.
 *
 * @example
 * const { database, postgres } = loadStoreConfig({ DATABASE_URL: 'postgres://db/plants' });
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
  return { database: values.DATABASE_URL, postgres: postgresConfig(values) };
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
