import { maskUrl, StartupError } from '../../config.ts';
import { errorCode, StoreUnavailableError } from '../plant-store.ts';

/**
 * "Cannot serve this now, try again": SQLSTATE classes 08, 28, 53, 58; serialization, deadlock,
 * lock and statement timeouts, shutdowns, a standby after a failover (25006); socket errors.
 */
const UNAVAILABLE_CODE =
  /^((08|28|53|58)...|40001|40P01|55P03|57014|57P0[1235]|25006|ECONNREFUSED|ECONNRESET|ECONNABORTED|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN)$/;
/** A pooled connection the database (or the network) closed while it sat idle. */
const STALE_CODES = new Set(['57P01', '57P02', 'ECONNRESET', 'EPIPE']);

/**
 * The database cannot serve right now (not a fault of the statement). A statement the database
 * refused carries its SQLSTATE `code`, a socket error its errno; node-postgres raises its own
 * failures (the connection ended, a connect or query timeout, a closed pool) as plain `Error`s
 * without a code, never a verdict on the statement.
 */
export function isPostgresUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof StoreUnavailableError) return true;
  const code = errorCode(error);
  if (code !== undefined) return UNAVAILABLE_CODE.test(code);
  if (error.constructor === Error && error.cause === undefined) return true;
  if (error instanceof AggregateError && error.errors.some(isPostgresUnavailable)) return true;
  return error.cause !== undefined && error.cause !== error && isPostgresUnavailable(error.cause);
}

export function translatePostgresError(error: unknown): unknown {
  if (error instanceof StoreUnavailableError || !isPostgresUnavailable(error)) return error;
  const message = `PostgreSQL is unavailable: ${describeError(error)}`;
  return new StoreUnavailableError(message, { cause: error });
}

/** Waiting will not fix a refused login. */
export function isPostgresLoginRefused(error: unknown): boolean {
  return errorCode(error)?.startsWith('28') === true;
}

/** The connection a query ran on was closed by the database or the network: worth a retry on another. */
export function isStaleConnection(error: unknown): boolean {
  return STALE_CODES.has(errorCode(error) ?? '');
}

/** One line for any error pg raises: its message (or its parts') and its code, once. */
export function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.message === '') {
    return [...new Set(error.errors.map(describeError))].join('; ') || 'AggregateError';
  }
  if (!(error instanceof Error)) return String(error);
  const code = errorCode(error);
  const message = error.message || error.name;
  return code !== undefined && !message.includes(code) ? `${message} (${code})` : message;
}

export function postgresOpenError(error: unknown, url: string): StartupError {
  if (error instanceof StartupError) return error;
  const message = `Cannot open the PostgreSQL store at ${maskUrl(url)}: ${describeError(error)}`;
  return new StartupError(message, { cause: error });
}
