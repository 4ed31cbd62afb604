import { StoreUnavailableError } from '../plant-store.ts';

/**
 * SQLSTATE codes (or their two-character classes) that mean "the database cannot serve this
 * now, try again": the server is down, starting, shutting down, out of resources, timed out,
 * or a transient concurrency failure. See the PostgreSQL manual, appendix "Error Codes".
 */
const UNAVAILABLE_SQLSTATE_CLASSES = [
  '08', // connection_exception
  '28', // invalid_authorization_specification (credentials rotated or revoked)
  '53', // insufficient_resources (too_many_connections, disk_full, out_of_memory)
  '58', // system_error (io_error)
];
const UNAVAILABLE_SQLSTATES = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '55P03', // lock_not_available
  '57014', // query_canceled (statement_timeout)
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, recovering)
  '57P05', // idle_session_timeout
  '25006', // read_only_sql_transaction (connected to a standby after a failover)
]);

/** Node socket errors: the database host cannot be reached. */
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/** Messages of errors that node-postgres (pg, pg-pool) raises without a code. */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'timeout expired',
  'Query read timeout',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
];

/**
 * True when `error` says the database cannot be reached or cannot serve right now (a
 * retry later may succeed), as opposed to a problem with the statement or its data.
 *
 * @example
 * isPostgresUnavailable(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })); // true
 * isPostgresUnavailable(Object.assign(new Error('null value'), { code: '23502' })); // false
 */
export function isPostgresUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof StoreUnavailableError) return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (UNAVAILABLE_ERRNOS.has(code) || UNAVAILABLE_SQLSTATES.has(code)) return true;
    if (code.length === 5 && UNAVAILABLE_SQLSTATE_CLASSES.includes(code.slice(0, 2))) return true;
  }
  if (UNAVAILABLE_MESSAGES.some((message) => error.message.startsWith(message))) return true;
  // An AggregateError (one per address tried) or an error wrapping the real cause.
  if (error instanceof AggregateError && error.errors.some(isPostgresUnavailable)) return true;
  return error.cause !== undefined && error.cause !== error && isPostgresUnavailable(error.cause);
}

/**
 * `error` as the store reports it: a StoreUnavailableError (the server answers 503 with
 * Retry-After) when the database cannot be reached, otherwise `error` unchanged.
 *
 * @example
 * throw translatePostgresError(error);
 */
export function translatePostgresError(error: unknown): unknown {
  if (error instanceof StoreUnavailableError || !isPostgresUnavailable(error)) return error;
  const reason = error instanceof Error ? error.message || errorCode(error) : String(error);
  return new StoreUnavailableError(`PostgreSQL is unavailable: ${reason}`, { cause: error });
}

function errorCode(error: Error): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : error.name;
}

/**
 * True when the database refused the login (SQLSTATE class 28: wrong password, unknown or
 * locked role): a deployment mistake that waiting will not fix, unlike a database still
 * starting. Looks through StoreUnavailableError and other wrappers (`cause`).
 *
 * @example
 * isPostgresLoginRefused(Object.assign(new Error('password authentication failed'), { code: '28P01' })); // true
 */
export function isPostgresLoginRefused(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 10; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('28')) return true;
    current = current.cause;
  }
  return false;
}

// A pooled connection the database (or the network) closed while it sat idle: the next query
// on it fails at once, but a fresh connection may well work.
const STALE_CONNECTION_CODES = new Set(['57P01', '57P02', 'ECONNRESET', 'EPIPE']);

/**
 * True when `error` says the connection a query ran on was already dead (terminated by an
 * administrator or a restart, or reset): worth one retry on a new connection. Not true for a
 * database that cannot be reached at all (that is answered 503 at once).
 *
 * @example
 * isStaleConnection(Object.assign(new Error('terminating connection'), { code: '57P01' })); // true
 * isStaleConnection(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })); // false
 */
export function isStaleConnection(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && STALE_CONNECTION_CODES.has(code)) return true;
  return error.message.startsWith('Connection terminated unexpectedly');
}
