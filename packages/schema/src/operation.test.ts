import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { checkPart, defineCall, defineOperation } from './operation.ts';
import { NewPlant, Plant } from './plant.ts';

describe('checkPart', () => {
  it('gives the parsed value of a body the schema accepts', () => {
    expect(checkPart(NewPlant, { id: 7, name: 'Fern' })).toEqual({
      ok: true,
      value: { id: 7n, name: 'Fern' },
    });
  });

  it('gives every issue of a refused body, and their message by field', () => {
    const verdict = checkPart(NewPlant, { name: '' });
    expect(verdict.ok).toBe(false);
    if (verdict.ok) return;
    expect(verdict.message).toBe('id: is required; name: must not be empty');
    expect(verdict.issues.map((issue) => issue.path)).toEqual([['id'], ['name']]);
  });

  it('leads each problem of a parameter with its label and name', () => {
    const digits = z.string().check(z.regex(/^\d+$/, 'must be a whole number'));
    const query = z.object({ page: digits, size: digits, sort: z.object({ by: digits }) });
    const verdict = checkPart(
      query,
      { page: 'x', size: '2', sort: { by: '-' } },
      'query parameter',
    );
    expect(verdict.ok || verdict.message).toBe(
      'query parameter page: must be a whole number; query parameter sort.by: must be a whole number',
    );
    expect(
      checkPart(query, { page: '1', size: '2', sort: { by: '3' } }, 'query parameter'),
    ).toEqual({ ok: true, value: { page: '1', size: '2', sort: { by: '3' } } });
  });
});

describe('defineOperation', () => {
  it('is the call with the details beside it', () => {
    const call = defineCall({
      operationId: 'putThing',
      method: 'put',
      path: '/things',
      auth: 'none',
      body: NewPlant,
      response: { status: 201, schema: Plant },
    });
    const details = {
      tag: 'operations',
      errors: ['conflict'],
      summary: 'Put a thing',
      description: 'Puts it.',
      success: 'Put.',
    } as const;
    const operation = defineOperation(call, details);
    expect(operation).toEqual({ ...call, ...details });
    expect(operation.body).toBe(NewPlant);
  });
});
