import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);

// src/store/private-files.ts
import { chmodSync, closeSync, fchmodSync, mkdirSync, openSync, statSync } from "fs";
function makePrivateDirectory(dir) {
  if (mkdirSync(dir, { recursive: true, mode: 448 }) !== void 0) chmodSync(dir, 448);
}
function createPrivateFile(file, { exclusive = false } = {}) {
  let fd;
  try {
    fd = openSync(file, "wx", 384);
  } catch (error) {
    if (!exclusive && error.code === "EEXIST") return false;
    throw error;
  }
  try {
    fchmodSync(fd, 384);
  } finally {
    closeSync(fd);
  }
  return true;
}
function looseDirectoryWarning(dir) {
  let mode;
  try {
    mode = statSync(dir).mode;
  } catch {
    return void 0;
  }
  if ((mode & 63) === 0) return void 0;
  const octal = (mode & 511).toString(8).padStart(4, "0");
  return `the data directory ${dir} is mode ${octal}: other users of this host may read its files; run chmod 700 ${dir}`;
}

// src/config.ts
import { isIP } from "net";
import { fileURLToPath } from "url";
import bytes from "bytes";
import { z } from "zod";
var MAX_TIMER_MS = 864e5;
var MAX_BODY_LIMIT_BYTES = 16 * 1024 * 1024;
var PORT_RANGE = { min: 0, max: 65535 };
var MS = (min) => ({ min, max: MAX_TIMER_MS, unit: "milliseconds" });
var COUNT = (min) => ({ min, max: 1e6 });
var SECONDS = { min: 1, max: MAX_TIMER_MS / 1e3, unit: "seconds" };
var nonEmpty = z.string().min(1, "must not be empty");
var token = z.string().min(16, "each token must be at least 16 characters").regex(/^[A-Za-z0-9\-._~+/]+=*$/, "each token must use only A-Z a-z 0-9 - . _ ~ + / =");
var proxies = "an IP address (127.0.0.1, ::1), a network (10.0.0.0/8, fd00::/8) or one of loopback, linklocal, uniquelocal";
var proxy = z.string().refine(isProxyAddress, `each entry must be ${proxies}`);
var origin = z.string().refine(isOrigin, "each origin must be scheme://host[:port], without a path or a trailing slash");
var environments = ["development", "test", "production"];
var Env = z.object({
  NODE_ENV: oneOf(environments, "(unset means development)").default("development"),
  // production: a credential required
  PORT: integer(PORT_RANGE).default(3e3),
  // TCP port of the API (0: any free port)
  HOST: nonEmpty.default("127.0.0.1"),
  // address to listen on
  DATABASE_URL: z.string().default("./data/plants.db").transform(parseDatabase),
  // SQLite or PG
  PLANT_STORE_TOKENS: commaList(token),
  // bearer tokens, logged as env#1, env#2, …
  BODY_LIMIT: size(MAX_BODY_LIMIT_BYTES).default(65536),
  // largest request body
  LOG_LEVEL: oneOf(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  // pino's level
  DURABILITY: oneOf(["full", "normal"]).default("full"),
  // full: fsync every commit
  PG_POOL_MAX: integer({ min: 1, max: 1e3 }).default(10),
  // PostgreSQL connections per process
  PG_CONNECT_TIMEOUT_MS: integer(MS(1)).default(2e3),
  // pool wait, TCP connect and login
  PG_STATEMENT_TIMEOUT_MS: integer(MS(1)).default(5e3),
  // statement, lock and idle timeout
  PG_STARTUP_WAIT_MS: integer(MS(0)).default(0),
  // retrying an unreachable PostgreSQL at start
  METRICS_PORT: integer(PORT_RANGE).optional(),
  // GET /metrics on its own listener; unset: none
  METRICS_HOST: nonEmpty.default("127.0.0.1"),
  // address of the metrics listener
  RATE_LIMIT_PER_SECOND: integer(COUNT(0)).default(100),
  // per credential (0: off)
  RATE_LIMIT_BURST: integer(COUNT(1)).default(200),
  // requests at once per credential
  AUTH_FAILURES_PER_MINUTE: integer(COUNT(0)).default(30),
  // refused credentials per address
  ANONYMOUS_PER_SECOND: integer(COUNT(0)).default(20),
  // per address, without a credential
  ANONYMOUS_BURST: integer(COUNT(1)).default(100),
  // at once per address, without a credential
  TRUST_PROXY: commaList(proxy),
  // reverse proxies whose X-Forwarded-For is believed
  CORS_ORIGINS: commaList(origin),
  // browser origins allowed by CORS; empty: CORS off
  KEEP_ALIVE_TIMEOUT_SECONDS: integer(SECONDS).default(65),
  // idle keep-alive connection lifetime
  MAX_CONNECTIONS: integer(COUNT(0)).default(900),
  // open connections per process (0: no cap)
  SHUTDOWN_DELAY_MS: integer(MS(0)).default(0),
  // /readyz 503 for this long before closing
  WEB_CONCURRENCY: integer({ min: 1, max: 256 }).default(1)
  // HTTP worker processes (cluster.ts)
});
function shown(value) {
  const text = String(value);
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}\u2026` : text);
}
function oneOf(values, note = "") {
  const accepted = `${values.join(", ")}${note ? ` ${note}` : ""}`;
  return z.enum(values, { error: (issue) => `${shown(issue.input)} is not one of ${accepted}` });
}
function integer(range) {
  const what = range.unit ? `a whole number of ${range.unit}` : "a whole number";
  const expected = `${what} from ${range.min} to ${range.max} (decimal digits only)`;
  const digits = (value) => /^[0-9]+$/.test(value) ? Number(value) : null;
  return parsed(digits, range, expected).meta({ range });
}
function size(max) {
  const expected = `a size from 1 byte to ${bytes.format(max)}: digits, optionally followed by kb or mb (65536, 64kb, 1mb)`;
  const sized = (value) => /^[0-9]+(?:b|kb|mb)?$/i.test(value) ? bytes.parse(value) : null;
  return parsed(sized, { min: 1, max }, expected);
}
function parsed(parse, range, expected) {
  return z.string().transform((value, ctx) => {
    const number = parse(value);
    if (number !== null && number >= range.min && number <= range.max) return number;
    ctx.addIssue({ code: "custom", message: `${shown(value)} is not ${expected}` });
    return z.NEVER;
  });
}
function commaList(item) {
  const items = (value) => value.trim().split(/\s*,\s*/).filter(Boolean);
  return z.string().default("").transform(items).pipe(z.array(item));
}
function isProxyAddress(value) {
  if (["loopback", "linklocal", "uniquelocal"].includes(value)) return true;
  const [address = "", prefix, ...rest] = value.split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === void 0) return true;
  const bits = /^[0-9]{1,3}$/.test(prefix) ? Number(prefix) : 0;
  return bits >= 1 && bits <= (family === 4 ? 32 : 128);
}
function isOrigin(value) {
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.origin === value;
  } catch {
    return false;
  }
}
var ACCEPTED_FORMS = "a file path (data/plants.db, /var/lib/plants.db), a file: URL (file:./data/plants.db, file:///var/lib/plants.db) or a postgres:// / postgresql:// URL";
function parseDatabase(url, ctx) {
  const refuse = (reason) => {
    const masked = url.replace(/^([^:/?#]+:\/\/)[^/?#]*@/, "$1***@");
    const message = `Invalid database URL ${JSON.stringify(masked)}: ${reason}. Use ${ACCEPTED_FORMS}.`;
    if (!ctx) throw new ConfigError(message);
    ctx.addIssue({ code: "custom", message });
    return z.NEVER;
  };
  if (url.trim() === "") return refuse("it is empty");
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]+):/.exec(url)?.[1]?.toLowerCase();
  if (scheme === void 0) return { kind: "sqlite", filename: url, shown: url };
  if (scheme === "postgres" || scheme === "postgresql") {
    return { kind: "postgres", url, shown: maskUrl(url) };
  }
  if (scheme !== "file") return refuse(`the scheme "${scheme}:" is not supported`);
  if (/[?#]/.test(url))
    return refuse("query strings and fragments are not supported in file: URLs");
  let filename;
  try {
    filename = url.toLowerCase().startsWith("file://") ? fileURLToPath(url) : decodeURIComponent(url.slice("file:".length));
  } catch (error) {
    return refuse(error instanceof Error ? error.message : String(error));
  }
  if (filename === "") return refuse("it names no file");
  return { kind: "sqlite", filename, shown: filename };
}
function maskUrl(url) {
  return url.replace(/^([^:/?#]+:\/\/[^:@/?#]*):[^@/?#]*@/, "$1:***@").replace(/([?&]password=)[^&#]*/gi, "$1***");
}
var CONFIG_VARIABLES = Object.keys(Env.shape);
var StartupError = class extends Error {
  name = "StartupError";
};
var ConfigError = class extends StartupError {
  name = "ConfigError";
};
var NO_CREDENTIAL_MESSAGE = "Invalid configuration: NODE_ENV=production needs a credential to accept: set PLANT_STORE_TOKENS (comma-separated bearer tokens), or issue a managed token in this database first with `plant-store tokens create --name <consumer>` (node dist/cli.js tokens create \u2026, same DATABASE_URL)";
var RETIRED = {
  RATE_LIMIT_PER_MINUTE: "set RATE_LIMIT_PER_SECOND (sustained requests per second per credential, default 100) and RATE_LIMIT_BURST (requests at once, default 200) instead",
  TRUST_PROXY_HOPS: "set TRUST_PROXY to the addresses or networks of your reverse proxies (e.g. TRUST_PROXY=127.0.0.1 for a proxy on this machine)"
};
function loadConfig(env = process.env) {
  const values = parseEnv(Env, env);
  for (const [name, instead] of Object.entries(RETIRED)) {
    if (env[name] === void 0) continue;
    throw new ConfigError(
      `Invalid configuration: ${name} is no longer read: ${instead}, and remove ${name}`
    );
  }
  if (values.METRICS_PORT === values.PORT && values.PORT !== 0) {
    throw new ConfigError(
      "Invalid configuration: METRICS_PORT: must differ from PORT (metrics have their own listener)"
    );
  }
  const production = values.NODE_ENV === "production";
  const tokens = values.PLANT_STORE_TOKENS;
  return {
    production,
    port: values.PORT,
    host: values.HOST,
    ...loadStoreConfig(env),
    tokens,
    /** No token outside production: the development token in the data directory is accepted. */
    developmentToken: !production && tokens.length === 0,
    bodyLimitBytes: values.BODY_LIMIT,
    logLevel: values.LOG_LEVEL,
    durability: values.DURABILITY,
    ...values.METRICS_PORT === void 0 ? {} : { metrics: { port: values.METRICS_PORT, host: values.METRICS_HOST } },
    rateLimit: {
      perSecond: values.RATE_LIMIT_PER_SECOND,
      burst: values.RATE_LIMIT_BURST,
      authFailuresPerMinute: values.AUTH_FAILURES_PER_MINUTE,
      ...values.ANONYMOUS_PER_SECOND > 0 ? { anonymous: { perSecond: values.ANONYMOUS_PER_SECOND, burst: values.ANONYMOUS_BURST } } : {}
    },
    trustProxy: values.TRUST_PROXY,
    corsOrigins: values.CORS_ORIGINS,
    keepAliveTimeoutMs: values.KEEP_ALIVE_TIMEOUT_SECONDS * 1e3,
    maxConnections: values.MAX_CONNECTIONS,
    shutdownDelayMs: values.SHUTDOWN_DELAY_MS,
    webConcurrency: values.WEB_CONCURRENCY
  };
}
function loadStoreConfig(env = process.env) {
  const schema = Env.pick({
    DATABASE_URL: true,
    PG_POOL_MAX: true,
    PG_CONNECT_TIMEOUT_MS: true,
    PG_STATEMENT_TIMEOUT_MS: true,
    PG_STARTUP_WAIT_MS: true
  });
  const values = parseEnv(schema, env);
  return {
    database: values.DATABASE_URL,
    postgres: {
      poolMax: values.PG_POOL_MAX,
      connectTimeoutMs: values.PG_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: values.PG_STATEMENT_TIMEOUT_MS,
      startupWaitMs: values.PG_STARTUP_WAIT_MS
    }
  };
}
function parseEnv(schema, env) {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
  throw new ConfigError(`Invalid configuration: ${problems.join("; ")}`);
}

// src/store/plant-store.ts
var StoreUnavailableError = class extends Error {
  name = "StoreUnavailableError";
};
var StoreOpenError = class extends StartupError {
  name = "StoreOpenError";
};
function outcomeAgainst(stored, plant) {
  return stored.name === plant.name && (stored.tag ?? null) === (plant.tag ?? null) ? "replayed" : "conflict";
}

// src/store/postgres/errors.ts
var UNAVAILABLE_CODE = /^((08|28|53|58)...|40001|40P01|55P03|57014|57P0[1235]|25006|ECONNREFUSED|ECONNRESET|ECONNABORTED|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN)$/;
var AGAIN = "the server is ready again once a write succeeds.";
var UNAVAILABLE_MESSAGES = [
  "Connection terminated",
  "timeout exceeded when trying to connect",
  "timeout expired",
  "Query read timeout",
  "Client has encountered a connection error and is not queryable",
  "Client was closed and is not queryable",
  "Cannot use a pool after calling end on the pool"
];
var STALE_CODES = /* @__PURE__ */ new Set(["57P01", "57P02", "ECONNRESET", "EPIPE"]);
function ownCode(error) {
  const code = error?.code;
  return typeof code === "string" ? code : void 0;
}
function postgresCode(error) {
  for (let current = error, depth = 0; current instanceof Error && depth < 10; depth += 1) {
    const code = ownCode(current);
    if (code !== void 0) return code;
    current = current instanceof AggregateError ? current.errors[0] : current.cause;
  }
  return void 0;
}
function isPostgresUnavailable(error) {
  if (!(error instanceof Error)) return false;
  if (error instanceof StoreUnavailableError) return true;
  if (UNAVAILABLE_CODE.test(ownCode(error) ?? "")) return true;
  if (UNAVAILABLE_MESSAGES.some((message) => error.message.startsWith(message))) return true;
  if (error instanceof AggregateError && error.errors.some(isPostgresUnavailable)) return true;
  return error.cause !== void 0 && error.cause !== error && isPostgresUnavailable(error.cause);
}
function translatePostgresError(error) {
  if (error instanceof StoreUnavailableError || !isPostgresUnavailable(error)) return error;
  return new StoreUnavailableError(`PostgreSQL is unavailable: ${describeError(error)}`, {
    cause: error
  });
}
function isPostgresLoginRefused(error) {
  return postgresCode(error)?.startsWith("28") === true;
}
function isStaleConnection(error) {
  if (!(error instanceof Error)) return false;
  if (STALE_CODES.has(ownCode(error) ?? "")) return true;
  return error.message.startsWith("Connection terminated unexpectedly");
}
function describeError(error) {
  if (error instanceof AggregateError && error.message === "") {
    return [...new Set(error.errors.map(describeError))].join("; ") || "AggregateError";
  }
  if (!(error instanceof Error)) return String(error);
  const code = ownCode(error);
  const message = error.message || error.name;
  return code !== void 0 && !message.includes(code) ? `${message} (${code})` : message;
}
function describePostgresFailure(error) {
  const code = postgresCode(error) ?? "UNAVAILABLE";
  const message = `PostgreSQL cannot commit: ${error instanceof Error ? error.message : String(error)}`;
  let action = `See the error in the PostgreSQL log; ${AGAIN}`;
  if (code === "53100") action = "Free disk space on the PostgreSQL server.";
  else if (code === "25006") {
    action = "The database is read-only (a standby, or default_transaction_read_only): point DATABASE_URL at the primary or make the database writable.";
  } else if (code === "42501") action = "Grant the server's role INSERT on the plants table.";
  else if (code.startsWith("28")) action = "Fix the credentials in DATABASE_URL (login refused).";
  else if (code.startsWith("53")) {
    action = "PostgreSQL is out of resources (connections, memory): check its limits.";
  } else if (/^(57P|08|E|UNAVAILABLE$)/.test(code)) {
    action = `Check that PostgreSQL is running and reachable from this host; ${AGAIN}`;
  }
  return { code, message, action };
}
function postgresOpenError(error, url) {
  if (error instanceof StoreOpenError) return error;
  const code = postgresCode(error) ?? "";
  let action = "Fix DATABASE_URL or the database, then start again.";
  if (code.startsWith("28")) action = "Fix the user name or password in DATABASE_URL.";
  else if (code === "3D000") action = "Create that database, or fix its name in DATABASE_URL.";
  else if (isPostgresUnavailable(error)) {
    action = "Check that PostgreSQL is running and reachable at that host and port (or fix DATABASE_URL); PG_STARTUP_WAIT_MS makes start-up wait for it.";
  }
  return new StoreOpenError(
    `Cannot open the PostgreSQL store at ${maskUrl(url)}: ${describeError(error)}. ${action}`,
    { cause: error }
  );
}

// src/store/database.ts
import { setTimeout as sleep } from "timers/promises";

// src/store/migration-list.ts
var SchemaTooNewError = class extends StoreOpenError {
  name = "SchemaTooNewError";
};
function checkMigrations(migrations, from) {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new Error(
        `Migration "${migration.name}" has version ${migration.version}; expected ${index + 1} (versions must be 1, 2, 3, ... in order).`
      );
    }
  });
  if (from > migrations.length) {
    throw new SchemaTooNewError(
      `The database schema is at version ${from}, but this server only knows versions up to ${migrations.length}; run a newer server or point it at another database.`
    );
  }
}

// src/store/postgres/migrations.ts
var POSTGRES_MIGRATIONS = [
  {
    version: 1,
    name: "create plants",
    sql: `
      CREATE TABLE plants (
        id BIGINT PRIMARY KEY,
        name TEXT NOT NULL,
        tag TEXT,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
    `
  },
  {
    version: 2,
    name: "create tokens",
    // Only a token's SHA-256 (hex) is kept.
    sql: `
      CREATE TABLE tokens (
        id INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        name TEXT NOT NULL,
        digest TEXT NOT NULL UNIQUE CHECK (length(digest) = 64),
        created_at TIMESTAMPTZ NOT NULL,
        expires_at TIMESTAMPTZ,
        revoked_at TIMESTAMPTZ
      );
      CREATE UNIQUE INDEX tokens_active_name ON tokens (name) WHERE revoked_at IS NULL;
    `
  },
  {
    version: 3,
    name: "create rate limits",
    // Counts, not data: not in the WAL.
    sql: `
      CREATE UNLOGGED TABLE rate_limits (
        key TEXT PRIMARY KEY,
        points BIGINT NOT NULL,
        ends_at BIGINT NOT NULL
      );
    `
  }
];
async function migratePostgres(pool, migrations = POSTGRES_MIGRATIONS) {
  const client = await pool.connect();
  const ignore = () => void 0;
  client.on("error", ignore);
  let committed = false;
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(7283514092001)");
    await client.query(`
      CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )
    `);
    const { rows } = await client.query(
      "SELECT version FROM schema_migrations"
    );
    const applied = new Set(rows.map((row) => row.version));
    const from = Math.max(0, ...applied);
    checkMigrations(migrations, from);
    const pending = migrations.filter((migration) => !applied.has(migration.version));
    for (const migration of pending) {
      await client.query(migration.sql);
      await client.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [
        migration.version,
        migration.name
      ]);
    }
    await client.query("COMMIT");
    committed = true;
    return { from, to: migrations.length, applied: pending.map((migration) => migration.version) };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => void 0);
    throw error;
  } finally {
    client.off("error", ignore);
    client.release(!committed);
  }
}

// src/store/sqlite/open-database.ts
import { dirname as dirname2 } from "path";

// src/store/sqlite/driver.ts
import { createRequire } from "module";
var DRIVER_PACKAGE = Number(process.versions.node.split(".")[0]) >= 22 ? "better-sqlite3-13" : "better-sqlite3";
var Driver = createRequire(import.meta.url)(DRIVER_PACKAGE);
function openSqlite(filename, options) {
  return new Driver(filename, options);
}
var SqliteError = Driver.SqliteError;

// src/store/sqlite/errors.ts
import { accessSync, constants, statSync as statSync2 } from "fs";
import { dirname, join } from "path";
var UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|PROTOCOL|READONLY|NOMEM)/;
var WRITABLE = "the database file, its -wal and -shm files and their directory writable by the server's user";
var AGAIN2 = "the server is ready again once a write succeeds.";
var DatabaseFileGoneError = class extends Error {
  constructor(code, path) {
    const what = code === "FILE_DELETED" ? "deleted" : "replaced by another file";
    super(`${path} was ${what} while the server had it open`);
    this.code = code;
  }
  code;
  name = "DatabaseFileGoneError";
};
function sqliteCode(error) {
  return error instanceof SqliteError ? error.code : void 0;
}
function translateSqliteError(error) {
  const gone = error instanceof DatabaseFileGoneError;
  if (!gone && !UNAVAILABLE.test(sqliteCode(error) ?? "")) return error;
  const what = gone ? "The database file is gone" : "SQLite is unavailable";
  return new StoreUnavailableError(`${what}: ${error.message}`, { cause: error });
}
function describeSqliteFailure(error, filename) {
  const cause = error instanceof StoreUnavailableError ? error.cause ?? error : error;
  if (cause instanceof DatabaseFileGoneError) {
    const action2 = "Creates are refused, so none is acknowledged into a file that is gone. Put the database file back if it was removed by mistake, then restart the server; never delete or replace a running server's database files.";
    return { code: cause.code, message: cause.message, action: action2 };
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  const code = sqliteCode(cause) ?? (cause instanceof Error ? cause.name : "UNKNOWN");
  const [what, action] = code.startsWith("SQLITE_FULL") ? [
    `The disk holding ${filename} is full`,
    `Free space on the file system of ${dirname(filename)}; the server is ready again within seconds of the next successful write.`
  ] : code.startsWith("SQLITE_READONLY") ? [
    `${filename} cannot be written`,
    `Make ${WRITABLE} (and the file system writable), then restart the server.`
  ] : code.startsWith("SQLITE_IOERR") ? [`I/O error on ${filename}`, `Check the disk and the kernel log; ${AGAIN2}`] : [`A write to ${filename} failed`, `See the error; ${AGAIN2}`];
  return { code, message: `${what}: ${message}`, action };
}
function sqliteOpenError(error, filename) {
  if (error instanceof StoreOpenError) return error;
  const opening = `Cannot open the SQLite database ${filename}`;
  const message = error instanceof Error ? error.message : String(error);
  const code = error?.code;
  if (typeof code !== "string") {
    return new StoreOpenError(`${opening}: ${message}`, { cause: error });
  }
  const why = message.startsWith(code) ? message : `${code}: ${message}`;
  const other = "or set DATABASE_URL to another file";
  let text = `${why}.`;
  if (code.startsWith("SQLITE_READONLY")) {
    text = `it is read-only for this user (${why}). Make ${WRITABLE}, ${other}.`;
  } else if (isDirectory(filename)) {
    text = `it is a directory. Set DATABASE_URL to a file, e.g. ${join(filename, "plants.db")}.`;
  } else if (onReadOnlyMount(dirname(filename))) {
    text = `its file system is mounted read-only (${why}). Remount it read-write, ${other}.`;
  } else if (code.startsWith("SQLITE_CANTOPEN") || code.startsWith("E")) {
    text = `the file cannot be created or opened there (${why}). Make sure ${dirname(filename)} is a directory the server's user can write (or can create), ${other}.`;
  } else if (code === "SQLITE_NOTADB" || code.startsWith("SQLITE_CORRUPT")) {
    text = `it is not a SQLite database, or it is damaged (${code}). Point DATABASE_URL at a plant-store database or a new file.`;
  }
  return new StoreOpenError(`${opening}: ${text}`, { cause: error });
}
function onReadOnlyMount(path) {
  try {
    accessSync(path, constants.W_OK);
    return false;
  } catch (error) {
    return error.code === "EROFS";
  }
}
function isDirectory(path) {
  try {
    return statSync2(path).isDirectory();
  } catch {
    return false;
  }
}

// src/store/sqlite/migrations.ts
var MIGRATIONS = [
  {
    version: 1,
    name: "create plants",
    sql: `
      CREATE TABLE plants (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        tag TEXT,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
      ) STRICT;
    `
  },
  {
    version: 2,
    name: "create tokens",
    // Only a token's SHA-256 (hex) is kept; times are ISO-8601 UTC with milliseconds.
    sql: `
      CREATE TABLE tokens (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        digest TEXT NOT NULL UNIQUE CHECK (length(digest) = 64),
        created_at TEXT NOT NULL,
        expires_at TEXT,
        revoked_at TEXT
      ) STRICT;
      CREATE UNIQUE INDEX tokens_active_name ON tokens (name) WHERE revoked_at IS NULL;
    `
  },
  {
    version: 3,
    name: "create rate limits",
    sql: `
      CREATE TABLE rate_limits (
        key TEXT PRIMARY KEY,
        points INTEGER NOT NULL,
        ends_at INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;
    `
  }
];
function migrate(db, migrations = MIGRATIONS) {
  return db.transaction(() => {
    const from = schemaVersion(db);
    checkMigrations(migrations, from);
    const pending = migrations.slice(from);
    for (const migration of pending) {
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    }
    return { from, to: migrations.length, applied: pending.map((m) => m.version) };
  }).immediate();
}
function schemaVersion(db) {
  return Number(db.pragma("user_version", { simple: true }));
}

// src/store/sqlite/open-database.ts
var SYNCHRONOUS = { normal: 1, full: 2 };
function openDatabase(filename, { durability = "full", busyTimeoutMs = 5e3 } = {}) {
  if (filename === "" || filename === ":memory:") {
    throw new Error(`The SQLite store needs a database file, not ${JSON.stringify(filename)}`);
  }
  let db;
  try {
    makePrivateDirectory(dirname2(filename));
    try {
      createPrivateFile(filename);
    } catch {
    }
    db = openSqlite(filename, { timeout: busyTimeoutMs });
    switchToWal(db, busyTimeoutMs);
    db.pragma(`synchronous = ${SYNCHRONOUS[durability]}`);
    db.pragma(`journal_size_limit = ${4 * 1024 * 1024}`);
    const mode = db.pragma("journal_mode", { simple: true });
    const synchronous = Number(db.pragma("synchronous", { simple: true }));
    if (mode !== "wal" || synchronous !== SYNCHRONOUS[durability]) {
      throw new Error(
        `SQLite did not apply journal_mode=WAL and synchronous=${SYNCHRONOUS[durability]} (it reads back ${String(mode)}, ${synchronous})`
      );
    }
    migrate(db);
    const applicationId = Number(db.pragma("application_id", { simple: true }));
    db.exec(`BEGIN IMMEDIATE; PRAGMA application_id = ${applicationId}; COMMIT`);
    return db;
  } catch (error) {
    db?.close();
    throw sqliteOpenError(error, filename);
  }
}
function switchToWal(db, busyTimeoutMs) {
  const deadline = Date.now() + busyTimeoutMs;
  for (; ; ) {
    try {
      db.pragma("journal_mode = WAL");
      return;
    } catch (error) {
      if (sqliteCode(error) !== "SQLITE_BUSY" || Date.now() >= deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

// src/store/database.ts
async function openDatabaseHandle(location, options = {}) {
  if (location.kind === "sqlite") {
    const db = openDatabase(location.filename, options);
    return { kind: "sqlite", filename: location.filename, db, close: async () => void db.close() };
  }
  return openPostgres(location.url, options);
}
async function openPostgres(url, options) {
  const {
    poolMax = 10,
    connectTimeoutMs = 2e3,
    statementTimeoutMs = 5e3
  } = options.postgres ?? {};
  const queryTimeoutMs = statementTimeoutMs + connectTimeoutMs;
  const timeouts = { poolMax, connectTimeoutMs, statementTimeoutMs, queryTimeoutMs };
  const { default: pgModule } = await import("pg");
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
    idleTimeoutMillis: 3e4,
    application_name: "plant-store",
    types,
    // Not the startup `options` parameter: a URL's own `options` would replace it.
    onConnect: options.durability === "normal" ? async (client) => void await client.query("SET synchronous_commit = off") : void 0
  });
  const onError = options.onError ?? (() => void 0);
  pool.on("error", (error) => onError(error, "idle PostgreSQL connection failed"));
  const deadline = Date.now() + (options.postgres?.startupWaitMs ?? 0);
  for (let delay = 100; ; delay = Math.min(delay * 2, 2e3)) {
    try {
      const synchronousCommit = await checkPostgres(pool, options.durability ?? "full");
      await migratePostgres(pool);
      const settings = { ...timeouts, synchronousCommit };
      return { kind: "postgres", url, pool, settings, close: () => pool.end() };
    } catch (error) {
      const remaining = deadline - Date.now();
      if (remaining <= 0 || !isPostgresUnavailable(error) || isPostgresLoginRefused(error)) {
        await pool.end().catch(() => void 0);
        throw postgresOpenError(error, url);
      }
      onError(new Error(describeError(error)), "waiting for PostgreSQL");
      await sleep(Math.min(delay, remaining));
    }
  }
}
async function checkPostgres(pool, durability) {
  const { rows } = await pool.query(
    `SELECT current_setting('synchronous_commit') AS sync, current_database() AS db,
       current_setting('server_encoding') AS server, current_setting('client_encoding') AS client`
  );
  const { sync = "unknown", db = "", server = "", client = "" } = rows[0] ?? {};
  if (durability !== "normal" && sync === "off") {
    throw new StoreOpenError(
      "the server runs with synchronous_commit = off, so a created plant could be lost when the database crashes; turn it on for this database or role, or set DURABILITY=normal to accept that"
    );
  }
  for (const [what, encoding] of Object.entries({ server, client })) {
    if (encoding.toUpperCase() === "UTF8") continue;
    const fix = what === "server" ? `create the database with ENCODING 'UTF8' (CREATE DATABASE ${db}_utf8 ENCODING 'UTF8' TEMPLATE template0), move the data (pg_dump | psql) and point DATABASE_URL at it` : "remove client_encoding from DATABASE_URL, PGCLIENTENCODING and the role's settings (ALTER ROLE \u2026 RESET client_encoding)";
    throw new StoreOpenError(
      `the database ${db} uses the ${what} encoding ${encoding}, which cannot hold every valid plant name (e.g. "fern \u{1F331}"); ${fix}`
    );
  }
  return sync;
}

export {
  makePrivateDirectory,
  createPrivateFile,
  looseDirectoryWarning,
  openSqlite,
  SqliteError,
  StartupError,
  ConfigError,
  NO_CREDENTIAL_MESSAGE,
  loadConfig,
  loadStoreConfig,
  StoreUnavailableError,
  outcomeAgainst,
  schemaVersion,
  postgresCode,
  isPostgresUnavailable,
  translatePostgresError,
  isStaleConnection,
  describePostgresFailure,
  DatabaseFileGoneError,
  sqliteCode,
  translateSqliteError,
  describeSqliteFailure,
  openDatabase,
  openDatabaseHandle
};
//# sourceMappingURL=chunk-ED44OKCU.js.map