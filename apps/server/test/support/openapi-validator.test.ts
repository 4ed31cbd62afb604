import { describe, expect, it } from 'vitest';
import { OpenApiResponseValidator } from './openapi-validator.ts';

describe('OpenApiResponseValidator', () => {
  const validator = new OpenApiResponseValidator();
  const error = (code: number) => ({ error: code, message: 'x' });

  it('requires the headers the document declares for a status', () => {
    expect(() =>
      validator.assertResponse('post', '/plants', 429, error(42901), new Headers()),
    ).toThrow(/requires a Retry-After header/);
    expect(() =>
      validator.assertResponse('post', '/plants', 401, error(40101), new Headers()),
    ).toThrow(/requires a WWW-Authenticate header/);
    expect(() =>
      validator.assertResponse('get', '/readyz', 503, error(50301), new Headers()),
    ).toThrow(/requires a Retry-After header/);
    expect(() =>
      validator.assertResponse('get', '/plants', 405, error(40501), new Headers()),
    ).toThrow(/requires a Allow header/);
    validator.assertResponse(
      'post',
      '/plants',
      429,
      error(42901),
      new Headers({ 'Retry-After': '3' }),
    );
    validator.assertResponse('post', '/plants', 404, error(40401), new Headers());
  });
});
