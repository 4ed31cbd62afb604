import { maskUrl } from '../../config.ts';
import { type NotReadyCause, StoreOpenError, StoreUnavailableError } from '../plant-store.ts';

/**
 * "Cannot serve this now, try again": SQLSTATE classes 08, 28, 53, 58; serialization, deadlock,
 * lock and statement timeouts, shutdowns, a standby after a failover (25006); socket errors.
 */
const UNAVAILABLE_CODE =
  /^((08|28|53|58)...|40001|40P01|55P03|57014|57P0[1235]|25006|ECONNREFUSED|ECONNRESET|ECONNABORTED|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN)$/;
const AGAIN = 'the server is ready again once a write succeeds.';
/** node-postgres raises these without a code. */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'timeout expired',
  'Query read timeout',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
];
/** A pooled connection the database (or the network) closed while it sat idle. */
const STALE_CODES = new Set(['57P01', '57P02', 'ECONNRESET', 'EPIPE']);

function ownCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** SQLSTATE (or errno) of `error` or of the first error it wraps that has one. */
export function postgresCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 10; depth += 1) {
    const code = ownCode(current);
    if (code !== undefined) return code;
    current = current instanceof AggregateError ? current.errors[0] : current.cause;
  }
  return undefined;
}

/** The database cannot serve right now (not a fault of the statement). */
export function isPostgresUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof StoreUnavailableError) return true;
  if (UNAVAILABLE_CODE.test(ownCode(error) ?? '')) return true;
  if (UNAVAILABLE_MESSAGES.some((message) => error.message.startsWith(message))) return true;
  if (error instanceof AggregateError && error.errors.some(isPostgresUnavailable)) return true;
  return error.cause !== undefined && error.cause !== error && isPostgresUnavailable(error.cause);
}

export function translatePostgresError(error: unknown): unknown {
  if (error instanceof StoreUnavailableError || !isPostgresUnavailable(error)) return error;
  return new StoreUnavailableError(`PostgreSQL is unavailable: ${describeError(error)}`, {
    cause: error,
  });
}

/** Waiting will not fix a refused login. */
export function isPostgresLoginRefused(error: unknown): boolean {
  return postgresCode(error)?.startsWith('28') === true;
}

/** The connection a query ran on was already dead: worth a retry on another. */
export function isStaleConnection(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (STALE_CODES.has(ownCode(error) ?? '')) return true;
  return error.message.startsWith('Connection terminated unexpectedly');
}

/** One line for any error pg raises: its message (or its parts') and its code, once. */
export function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.message === '') {
    return [...new Set(error.errors.map(describeError))].join('; ') || 'AggregateError';
  }
  if (!(error instanceof Error)) return String(error);
  const code = ownCode(error);
  const message = error.message || error.name;
  return code !== undefined && !message.includes(code) ? `${message} (${code})` : message;
}

export function describePostgresFailure(error: unknown): NotReadyCause {
  const code = postgresCode(error) ?? 'UNAVAILABLE';
  const message = `PostgreSQL cannot commit: ${error instanceof Error ? error.message : String(error)}`;
  let action = `See the error in the PostgreSQL log; ${AGAIN}`;
  if (code === '53100') action = 'Free disk space on the PostgreSQL server.';
  else if (code === '25006') {
    action =
      'The database is read-only (a standby, or default_transaction_read_only): point DATABASE_URL at the primary or make the database writable.';
  } else if (code === '42501') action = "Grant the server's role INSERT on the plants table.";
  else if (code.startsWith('28')) action = 'Fix the credentials in DATABASE_URL (login refused).';
  else if (code.startsWith('53')) {
    action = 'PostgreSQL is out of resources (connections, memory): check its limits.';
  } else if (/^(57P|08|E|UNAVAILABLE$)/.test(code)) {
    action = `Check that PostgreSQL is running and reachable from this host; ${AGAIN}`;
  }
  return { code, message, action };
}

export function postgresOpenError(error: unknown, url: string): StoreOpenError {
  if (error instanceof StoreOpenError) return error;
  const code = postgresCode(error) ?? '';
  let action = 'Fix DATABASE_URL or the database, then start again.';
  if (code.startsWith('28')) action = 'Fix the user name or password in DATABASE_URL.';
  else if (code === '3D000') action = 'Create that database, or fix its name in DATABASE_URL.';
  else if (isPostgresUnavailable(error)) {
    action =
      'Check that PostgreSQL is running and reachable at that host and port (or fix DATABASE_URL); PG_STARTUP_WAIT_MS makes start-up wait for it.';
  }
  return new StoreOpenError(
    `Cannot open the PostgreSQL store at ${maskUrl(url)}: ${describeError(error)}. ${action}`,
    { cause: error },
  );
}
