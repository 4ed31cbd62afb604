import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error.ts';

describe('ApiError', () => {
  it('carries the catalog status, code and headers', () => {
    const error = new ApiError('validationFailed', 'name: required', { 'Retry-After': '1' });
    expect([error.status, error.code, error.kind]).toEqual([400, 40001, 'validationFailed']);
    expect(error.toBody()).toEqual({ error: 40001, message: 'name: required' });
    expect(error.headers).toEqual({ 'Retry-After': '1' });
    expect(error).toBeInstanceOf(Error);
  });
});
