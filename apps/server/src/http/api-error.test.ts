import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error.ts';

describe('ApiError', () => {
  it('carries the catalog status and code, and no stack frames (an answer, not a fault)', () => {
    const limit = Error.stackTraceLimit;
    const error = new ApiError('validationFailed', 'name: required');
    expect([error.status, error.code]).toEqual([400, 40001]);
    expect(error.toBody()).toEqual({ error: 40001, message: 'name: required' });
    expect(error.stack).not.toMatch(/\n\s+at /);
    // Other errors still get their stack.
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new Error('fault').stack).toMatch(/\n\s+at /);
  });
});
