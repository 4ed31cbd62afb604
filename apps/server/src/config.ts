import { isIP } from 'node:net';
import { fileURLToPath } from 'node:url';
import bytes from 'bytes';
import { z } from 'zod';

/** The longest timer setting: one day, so a sum of two stays below 2^31−1 ms. */
export const MAX_TIMER_MS = 86_400_000;
const MAX_BODY_LIMIT_BYTES = 16 * 1024 * 1024;

export type NumberRange = { min: number; max: number; unit?: 'milliseconds' | 'seconds' };
const PORT_RANGE = { min: 0, max: 65_535 };
const MS = (min: number): NumberRange => ({ min, max: MAX_TIMER_MS, unit: 'milliseconds' });
const COUNT = (min: number) => ({ min, max: 1_000_000 });
const SECONDS: NumberRange = { min: 1, max: MAX_TIMER_MS / 1000, unit: 'seconds' };

const nonEmpty = z.string().min(1, 'must not be empty');
const token = z
  .string()
  .min(16, 'each token must be at least 16 characters')
  .regex(/^[A-Za-z0-9\-._~+/]+=*$/, 'each token must use only A-Z a-z 0-9 - . _ ~ + / =');
const proxies =
  'an IP address (127.0.0.1, ::1), a network (10.0.0.0/8, fd00::/8) or one of loopback, linklocal, uniquelocal';
const proxy = z.string().refine(isProxyAddress, `each entry must be ${proxies}`);
const origin = z
  .string()
  .refine(isOrigin, 'each origin must be scheme://host[:port], without a path or a trailing slash');
const environments = ['development', 'test', 'production'] as const;

/** The one registry of the variables the server reads (a test keeps docs/operations.md in step). */
export const Env = z.object({
  NODE_ENV: oneOf(environments, '(unset means development)').default('development'), // production: a credential required
  PORT: integer(PORT_RANGE).default(3000), // TCP port of the API (0: any free port)
  HOST: nonEmpty.default('127.0.0.1'), // address to listen on
  DATABASE_URL: z.string().default('./data/plants.db').transform(parseDatabase), // SQLite or PG
  PLANT_STORE_TOKENS: commaList(token), // bearer tokens, logged as env#1, env#2, …
  BODY_LIMIT: size(MAX_BODY_LIMIT_BYTES).default(65_536), // largest request body
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'), // pino's level
  DURABILITY: oneOf(['full', 'normal']).default('full'), // full: fsync every commit
  PG_POOL_MAX: integer({ min: 1, max: 1_000 }).default(10), // PostgreSQL connections per process
  PG_CONNECT_TIMEOUT_MS: integer(MS(1)).default(2000), // pool wait, TCP connect and login
  PG_STATEMENT_TIMEOUT_MS: integer(MS(1)).default(5000), // statement, lock and idle timeout
  PG_STARTUP_WAIT_MS: integer(MS(0)).default(0), // retrying an unreachable PostgreSQL at start
  METRICS_PORT: integer(PORT_RANGE).optional(), // GET /metrics on its own listener; unset: none
  METRICS_HOST: nonEmpty.default('127.0.0.1'), // address of the metrics listener
  RATE_LIMIT_PER_SECOND: integer(COUNT(0)).default(100), // per credential (0: off)
  RATE_LIMIT_BURST: integer(COUNT(1)).default(200), // requests at once per credential
  AUTH_FAILURES_PER_MINUTE: integer(COUNT(0)).default(30), // refused credentials per address
  TRUST_PROXY: commaList(proxy), // reverse proxies whose X-Forwarded-For is believed
  CORS_ORIGINS: commaList(origin), // browser origins allowed by CORS; empty: CORS off
  KEEP_ALIVE_TIMEOUT_SECONDS: integer(SECONDS).default(65), // idle keep-alive connection lifetime
  MAX_CONNECTIONS: integer(COUNT(0)).default(900), // open connections per process (0: no cap)
  SHUTDOWN_DELAY_MS: integer(MS(0)).default(0), // /readyz 503 for this long before closing
  WEB_CONCURRENCY: z.string().optional(), // ignored (one process); set by some platforms: a warning
});

/** A value as an error message shows it: quoted (spaces and emptiness visible), and short. */
function shown(value: unknown): string {
  const text = String(value);
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

function oneOf<const Values extends readonly [string, ...string[]]>(values: Values, note = '') {
  const accepted = `${values.join(', ')}${note ? ` ${note}` : ''}`;
  return z.enum(values, { error: (issue) => `${shown(issue.input)} is not one of ${accepted}` });
}

/** Decimal digits only (no sign, fraction, exponent, hex or spaces), within `range`. */
function integer(range: NumberRange) {
  const what = range.unit ? `a whole number of ${range.unit}` : 'a whole number';
  const expected = `${what} from ${range.min} to ${range.max} (decimal digits only)`;
  const digits = (value: string) => (/^[0-9]+$/.test(value) ? Number(value) : null);
  return parsed(digits, range, expected).meta({ range });
}

/** A size in bytes: digits, optionally followed by b, kb or mb (1024-based). */
function size(max: number) {
  const expected = `a size from 1 byte to ${bytes.format(max)}: digits, optionally followed by kb or mb (65536, 64kb, 1mb)`;
  const sized = (value: string) =>
    /^[0-9]+(?:b|kb|mb)?$/i.test(value) ? bytes.parse(value) : null;
  return parsed(sized, { min: 1, max }, expected);
}

/** `parse`'s number within `range`; else refused, naming the value and what was expected. */
function parsed(parse: (value: string) => number | null, range: NumberRange, expected: string) {
  return z.string().transform((value, ctx) => {
    const number = parse(value);
    if (number !== null && number >= range.min && number <= range.max) return number;
    ctx.addIssue({ code: 'custom', message: `${shown(value)} is not ${expected}` });
    return z.NEVER;
  });
}

/** Comma-separated entries, spaces around them and empty ones ignored. */
function commaList(item: z.ZodType<string, string>) {
  const items = (value: string) => value.split(',').flatMap((entry) => entry.trim() || []);
  return z.string().default('').transform(items).pipe(z.array(item));
}

/**
 * An IP address, a network (prefix length 1 or more) or one of proxy-addr's named ranges:
 * stricter than proxy-addr, which would read `1` (meant as a hop count) as 0.0.0.1.
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

/** Exactly what browsers send as Origin: `https://app.example.com`, `http://localhost:5173`. */
function isOrigin(value: string): boolean {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  return /^https?:$/.test(url?.protocol ?? '') && url?.origin === value;
}

/** The store DATABASE_URL names; `shown` is safe to log. */
export type DatabaseLocation =
  | { readonly kind: 'sqlite'; readonly filename: string; readonly shown: string }
  | { readonly kind: 'postgres'; readonly url: string; readonly shown: string };

const ACCEPTED_FORMS =
  'a file path (data/plants.db, /var/lib/plants.db), a file: URL (file:./data/plants.db, ' +
  'file:///var/lib/plants.db) or a postgres:// / postgresql:// URL';

/** DATABASE_URL, without touching the file system (a single letter before ':' is a Windows drive). */
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
  if (/[?#]/.test(url))
    return refuse('query strings and fragments are not supported in file: URLs');
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

export type Config = ReturnType<typeof loadConfig>;
export type RateLimitConfig = Config['rateLimit'];
export type PostgresConfig = Config['postgres'];

/** A start-up failure the operator can fix: one line saying what failed, why and what to do. */
export class StartupError extends Error {
  override readonly name: string = 'StartupError';
}

export class ConfigError extends StartupError {
  override readonly name = 'ConfigError';
}

export const NO_CREDENTIAL_MESSAGE =
  'Invalid configuration: NODE_ENV=production needs a credential to accept: set PLANT_STORE_TOKENS ' +
  '(comma-separated bearer tokens), or issue a managed token in this database first with ' +
  '`plant-store tokens create --name <consumer>` (node dist/cli.js tokens create …, same DATABASE_URL)';

/**
 * Reads and validates the configuration: the one place the environment is read.
 * @example
 * const config = loadConfig({ PORT: '8080', PLANT_STORE_TOKENS: 'a-long-secret-token-1' });
 */
export function loadConfig(env: Record<string, string | undefined> = process.env) {
  const values = parseEnv(Env, env);
  const production = values.NODE_ENV === 'production';
  const tokens: readonly string[] = values.PLANT_STORE_TOKENS;
  return {
    production,
    port: values.PORT,
    host: values.HOST,
    ...loadStoreConfig(env),
    tokens,
    developmentToken: !production && tokens.length === 0,
    bodyLimitBytes: values.BODY_LIMIT,
    logLevel: values.LOG_LEVEL,
    durability: values.DURABILITY,
    ...(values.METRICS_PORT === undefined
      ? {}
      : { metrics: { port: values.METRICS_PORT, host: values.METRICS_HOST } }),
    rateLimit: {
      perSecond: values.RATE_LIMIT_PER_SECOND,
      burst: values.RATE_LIMIT_BURST,
      authFailuresPerMinute: values.AUTH_FAILURES_PER_MINUTE,
    },
    trustProxy: values.TRUST_PROXY as readonly string[],
    corsOrigins: values.CORS_ORIGINS as readonly string[],
    keepAliveTimeoutMs: values.KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
    maxConnections: values.MAX_CONNECTIONS,
    shutdownDelayMs: values.SHUTDOWN_DELAY_MS,
    /** Logged once at start: settings read but not followed. */
    warnings: (values.WEB_CONCURRENCY ?? '1') === '1' ? [] : [WEB_CONCURRENCY_WARNING],
  };
}

/** What a platform's WEB_CONCURRENCY gets: the server is one process, several are the proxy's. */
export const WEB_CONCURRENCY_WARNING =
  'WEB_CONCURRENCY is ignored: this server is one process; run one instance per core behind the proxy (docs/deployment.md)';

/** The configuration of an empty environment: every default, as the server uses it. */
export const DEFAULTS: Config = loadConfig({});

/**
 * Reads only DATABASE_URL and PG_*, for the `plant-store` command-line tool (no token needed).
 * @example
 * const { database, postgres } = loadStoreConfig({ DATABASE_URL: 'postgres://db/plants' });
 */
export function loadStoreConfig(env: Record<string, string | undefined> = process.env) {
  const schema = Env.pick({
    DATABASE_URL: true,
    PG_POOL_MAX: true,
    PG_CONNECT_TIMEOUT_MS: true,
    PG_STATEMENT_TIMEOUT_MS: true,
    PG_STARTUP_WAIT_MS: true,
  });
  const values = parseEnv(schema, env);
  return {
    database: values.DATABASE_URL,
    postgres: {
      poolMax: values.PG_POOL_MAX,
      connectTimeoutMs: values.PG_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: values.PG_STATEMENT_TIMEOUT_MS,
      startupWaitMs: values.PG_STARTUP_WAIT_MS,
    },
  };
}

/** A ConfigError names every variable that is wrong, and why. */
function parseEnv<Schema extends z.ZodType>(
  schema: Schema,
  env: Record<string, string | undefined>,
): z.output<Schema> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
}
