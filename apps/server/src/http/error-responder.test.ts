import { describe, expect, it } from 'vitest';
import { ApiError } from '../api-error.ts';
import { rawErrorAnswer } from './error-responder.ts';

describe('rawErrorAnswer', () => {
  it('is a whole HTTP/1.1 answer in the Error shape that closes its connection', () => {
    const error = new ApiError('methodNotAllowed', 'CONNECT is not allowed', { Allow: 'GET' });
    const body = '{"error":40501,"message":"CONNECT is not allowed"}';
    expect(rawErrorAnswer(error).split('\r\n')).toEqual([
      'HTTP/1.1 405 Method Not Allowed',
      'allow: GET',
      'content-type: application/json; charset=utf-8',
      `content-length: ${body.length}`,
      'connection: close',
      '',
      body,
    ]);
  });

  it("keeps the headers of the answer under way, the error's own and its framing winning", () => {
    const error = new ApiError('malformedRequest', 'unparsable', { 'Retry-After': '1' });
    const lines = rawErrorAnswer(error, {
      'x-request-id': 'r-1',
      'retry-after': '9',
      'content-length': '999',
      connection: 'keep-alive',
      'x-list': ['a', 'b'],
      'x-unset': undefined,
    }).split('\r\n');
    expect(lines[0]).toBe('HTTP/1.1 400 Bad Request');
    expect(lines).toContain('x-request-id: r-1');
    expect(lines).toContain('retry-after: 1');
    expect(lines).toContain('x-list: a, b');
    expect(lines).toContain('connection: close');
    expect(lines.filter((line) => line.startsWith('content-length:'))).toEqual([
      `content-length: ${Buffer.byteLength(error.toJson())}`,
    ]);
    expect(lines.some((line) => line.startsWith('x-unset'))).toBe(false);
  });
});
