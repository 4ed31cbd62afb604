import { type OutgoingHttpHeaders, STATUS_CODES } from 'node:http';
import type { ApiError } from '../api-error.ts';

/** The Error answer as raw HTTP/1.1 that closes its connection, for writing to a socket. */
export function rawErrorAnswer(error: ApiError, headers: OutgoingHttpHeaders = {}): string {
  const body = error.toJson();
  const given = Object.entries({ ...headers, ...error.headers });
  const fields = new Map(given.map(([name, value]) => [name.toLowerCase(), value]));
  fields.set('content-type', 'application/json; charset=utf-8');
  fields.set('content-length', Buffer.byteLength(body)).set('connection', 'close');
  const lines = [...fields].flatMap(([name, value]) =>
    value === undefined ? [] : [`${name}: ${Array.isArray(value) ? value.join(', ') : value}`],
  );
  const status = `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}`;
  return [status, ...lines, '', body].join('\r\n');
}
