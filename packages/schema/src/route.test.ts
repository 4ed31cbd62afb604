import { describe, expect, it } from 'vitest';
import { contract } from './contract.ts';
import { createPlantCall } from './create-plant-call.ts';
import { NewPlant, Plant } from './plant.ts';
import { routeOf } from './route.ts';

describe('routeOf', () => {
  it('makes createPlant its call (what the browser bundles) plus its tag and errors', () => {
    const { tag, errors, ...call } = contract.createPlant;
    expect(call).toEqual(createPlantCall);
    expect(createPlantCall).toEqual({
      operationId: 'createPlant',
      method: 'post',
      path: '/plants',
      auth: 'bearer',
      body: NewPlant,
      response: { status: 200, schema: Plant },
    });
    expect(tag).toBe('plants');
    expect(errors).toContain('conflict');
  });

  it('adds the rest to the call, unchanged', () => {
    const route = routeOf(createPlantCall, { tag: 'operations', errors: [] });
    expect(route).toEqual({ ...createPlantCall, tag: 'operations', errors: [] });
  });
});
