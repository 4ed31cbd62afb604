import { describe, expect, it } from 'vitest';
import { ApiError, MAX_ERROR_BODY_BYTES } from './api-error.ts';

describe('ApiError', () => {
  it('carries the catalog status, code and headers', () => {
    const error = new ApiError('validationFailed', 'name: required', { 'Retry-After': '1' });
    expect([error.status, error.code, error.kind]).toEqual([400, 40001, 'validationFailed']);
    expect(error.toJson()).toBe('{"error":40001,"message":"name: required"}');
    expect(error.headers).toEqual({ 'Retry-After': '1' });
    expect(error).toBeInstanceOf(Error);
  });
});

describe('ApiError.toJson', () => {
  it.each([
    ['ASCII', 'x'.repeat(100_000)],
    ['characters JSON escapes (6 bytes each)', '\u0001'.repeat(100_000)],
    ['three-byte characters', '€'.repeat(100_000)],
    ['surrogate pairs', '🌿'.repeat(100_000)],
  ])('keeps a body of %s within 1 KB, well-formed', (_label, message) => {
    const json = new ApiError('validationFailed', message).toJson();
    expect(Buffer.byteLength(json)).toBeLessThanOrEqual(MAX_ERROR_BODY_BYTES);
    const body = JSON.parse(json) as { error: number; message: string };
    expect(body.error).toBe(40001);
    expect(body.message.endsWith('…')).toBe(true);
    expect(body.message.isWellFormed()).toBe(true);
    expect(Buffer.byteLength(json)).toBeGreaterThan(MAX_ERROR_BODY_BYTES - 16);
  });

  it('leaves a short message as it is', () => {
    expect(new ApiError('conflict', 'short').toJson()).toBe('{"error":40901,"message":"short"}');
  });
});
