import { buildOpenApiDocument } from '@plant-store/schema/openapi';
import { describe, expect, it } from 'vitest';
import { fixtureContract } from './support/fixture-contract.ts';
import { OpenApiResponseValidator } from './support/openapi-validator.ts';

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

  it('finds the operation of a request path by the path templates, the query ignored', () => {
    const fixture = new OpenApiResponseValidator(buildOpenApiDocument(fixtureContract));
    expect(fixture.pathOf('/things/12?shout=yes')).toBe('/things/{id}');
    expect(fixture.pathOf('/things')).toBe('/things');
    expect(fixture.pathOf('/things/12/more')).toBe('/things/12/more');
    fixture.assertResponse('get', '/things/12', 200, { name: 'Fern' });
    fixture.assertResponse('get', '/things/12', 404, error(40401));
    expect(() => fixture.assertResponse('get', '/things/12', 200, { tag: 'x' })).toThrow(
      /GET \/things\/12 200: body does not match the OpenAPI document: .*name/,
    );
    expect(() => fixture.assertResponse('get', '/things/12', 409, error(40901))).toThrow(
      'get /things/{id} 409: the OpenAPI document does not list this response',
    );
  });
});
