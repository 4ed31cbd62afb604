import { type OutgoingHttpHeaders, STATUS_CODES } from 'node:http';
import type { ApiError } from '../api-error.ts';

export const MAX_ERROR_BODY_BYTES = 1024;

/** The Error body as JSON of at most {@link MAX_ERROR_BODY_BYTES} bytes, whatever the message. */
export function errorBodyJson(error: ApiError): string {
  const body = error.toBody();
  const json = JSON.stringify(body);
  if (Buffer.byteLength(json) <= MAX_ERROR_BODY_BYTES) return json;
  // The message's first characters that fit, as JSON writes them, with room for `…`.
  let room = MAX_ERROR_BODY_BYTES - Buffer.byteLength(JSON.stringify({ ...body, message: '…' }));
  let kept = '';
  for (const char of body.message) {
    room -= Buffer.byteLength(JSON.stringify(char)) - 2;
    if (room < 0) break;
    kept += char;
  }
  return JSON.stringify({ ...body, message: `${kept}…` });
}

/** The Error answer as raw HTTP/1.1 that closes its connection, for writing to a socket. */
export function rawErrorAnswer(error: ApiError, headers: OutgoingHttpHeaders = {}): string {
  const body = errorBodyJson(error);
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
