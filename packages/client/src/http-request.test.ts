import { contract, defineRoute, Plant } from '@plant-store/schema';
import { describe, expect, it } from 'vitest';
import { buildHttpRequest } from './http-request.ts';

const settings = { baseUrl: 'http://api.test/v1/', token: 'tok', timeoutMs: 500 };

describe('buildHttpRequest', () => {
  it('derives a bearer JSON POST from createPlant', () => {
    expect(buildHttpRequest(contract.createPlant, settings, '{"id":1,"name":"Fern"}')).toEqual({
      url: 'http://api.test/v1/plants',
      method: 'POST',
      headers: {
        accept: 'application/json',
        'content-type': 'application/json',
        authorization: 'Bearer tok',
      },
      body: '{"id":1,"name":"Fern"}',
      timeoutMs: 500,
    });
  });

  it('sends neither a credential nor a content type to a body-less public route', () => {
    expect(buildHttpRequest(contract.getHealth, settings, undefined)).toEqual({
      url: 'http://api.test/v1/healthz',
      method: 'GET',
      headers: { accept: 'application/json' },
      body: undefined,
      timeoutMs: 500,
    });
  });

  it('refuses a path template, which it cannot fill yet', () => {
    const getPlant = defineRoute({
      ...contract.getHealth,
      operationId: 'getPlant',
      path: '/plants/{id}',
      response: { ...contract.getHealth.response, schema: Plant },
    });
    expect(() => buildHttpRequest(getPlant, settings, undefined)).toThrow(
      'getPlant: path parameters (/plants/{id}) are not supported',
    );
  });
});
