import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../plant-store.ts';
import {
  isPostgresLoginRefused,
  isPostgresUnavailable,
  isStaleConnection,
  translatePostgresError,
} from './errors.ts';

function withCode(code: string, message = `error ${code}`): Error {
  return Object.assign(new Error(message), { code });
}

describe('isPostgresUnavailable', () => {
  it.each([
    ['ECONNREFUSED'],
    ['ECONNRESET'],
    ['ETIMEDOUT'],
    ['ENOTFOUND'],
    ['08006'], // connection_failure
    ['53300'], // too_many_connections
    ['57P01'], // admin_shutdown
    ['57P03'], // cannot_connect_now
    ['57014'], // query_canceled by statement_timeout
    ['40P01'], // deadlock_detected
    ['28P01'], // invalid_password
  ])('is true for code %s', (code) => {
    expect(isPostgresUnavailable(withCode(code))).toBe(true);
  });

  it.each([
    ['23505'], // unique_violation
    ['23502'], // not_null_violation
    ['22P02'], // invalid_text_representation
    ['42P01'], // undefined_table
    ['3D000'], // invalid_catalog_name (no such database)
    ['XX000'], // internal_error
  ])('is false for code %s', (code) => {
    expect(isPostgresUnavailable(withCode(code))).toBe(false);
  });

  it('is true for an error pg raises itself: a plain Error without a code', () => {
    expect(isPostgresUnavailable(new Error('any words'))).toBe(true);
  });

  it('is true for a query on a real pool that was ended', async () => {
    const ended = new pg.Pool({ host: '127.0.0.1', port: 1 });
    await ended.end();
    const error = await ended.query('SELECT 1').catch((caught: unknown) => caught);
    expect(isPostgresUnavailable(error)).toBe(true);
  });

  it('looks into AggregateError (one error per address) and causes', () => {
    const refused = new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], '');
    expect(isPostgresUnavailable(refused)).toBe(true);
    expect(isPostgresUnavailable(new Error('wrapped', { cause: withCode('57P01') }))).toBe(true);
    expect(isPostgresUnavailable(new Error('wrapped', { cause: withCode('23505') }))).toBe(false);
  });

  it('is false for non-errors and plain errors', () => {
    expect(isPostgresUnavailable('ECONNREFUSED')).toBe(false);
    expect(isPostgresUnavailable(undefined)).toBe(false);
    expect(isPostgresUnavailable(new TypeError('x is not a function'))).toBe(false);
  });
});

describe('translatePostgresError', () => {
  it('wraps unavailability in StoreUnavailableError, keeping the cause', () => {
    const cause = new AggregateError([withCode('ECONNREFUSED')], '');
    Object.assign(cause, { code: 'ECONNREFUSED' });
    const translated = translatePostgresError(cause);
    expect(translated).toBeInstanceOf(StoreUnavailableError);
    expect((translated as Error).message).toBe('PostgreSQL is unavailable: error ECONNREFUSED');
    expect((translated as Error).cause).toBe(cause);
  });

  it('passes other errors and StoreUnavailableError through unchanged', () => {
    const unique = withCode('23505');
    expect(translatePostgresError(unique)).toBe(unique);
    const unavailable = new StoreUnavailableError('closed');
    expect(translatePostgresError(unavailable)).toBe(unavailable);
  });
});

describe('isPostgresLoginRefused', () => {
  it('finds a class 28 code, also behind wrappers', () => {
    expect(isPostgresLoginRefused(withCode('28P01'))).toBe(true);
    expect(isPostgresLoginRefused(translatePostgresError(withCode('28000')))).toBe(true);
    expect(isPostgresLoginRefused(withCode('57P03'))).toBe(false);
    expect(isPostgresLoginRefused('28P01')).toBe(false);
  });
});

describe('isStaleConnection', () => {
  const withCode = (code: string) => Object.assign(new Error('x'), { code });

  it('recognises a connection closed under an idle pool client', () => {
    expect(isStaleConnection(withCode('57P01'))).toBe(true);
    expect(isStaleConnection(withCode('ECONNRESET'))).toBe(true);
  });

  it('does not retry a database that cannot be reached or a real query error', () => {
    expect(isStaleConnection(withCode('ECONNREFUSED'))).toBe(false);
    expect(isStaleConnection(new Error('timeout exceeded when trying to connect'))).toBe(false);
    expect(isStaleConnection(new Error('Connection terminated unexpectedly'))).toBe(false);
    expect(isStaleConnection(withCode('23502'))).toBe(false);
    expect(isStaleConnection('57P01')).toBe(false);
  });
});
