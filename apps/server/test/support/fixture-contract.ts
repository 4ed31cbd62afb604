import { defineCall, defineOperation, NewPlant, Plant } from '@plant-store/schema';
import * as z from 'zod/mini';
import { ApiError } from '../../src/api-error.ts';
import type { Implementations } from '../../src/http/contract-router.ts';

// A contract the API does not ship, to prove the machinery on what the shipped one lacks: a
// path parameter, a query parameter and a 404 answer (`getThing`), and a bearer PUT with a
// path parameter and a body (`putThing`). The router, the client and the document builder
// take it as they take the real one.

/** A thing's id: the path segment's digits, as a number. */
const ThingId = z.pipe(
  z.string().check(z.regex(/^[0-9]{1,9}$/, 'must be a whole number of at most 9 digits')),
  z.transform((text: string) => Number(text)),
);

export const getThing = defineOperation(
  defineCall({
    operationId: 'getThing',
    method: 'get',
    path: '/things/{id}',
    auth: 'none',
    params: z.object({ id: ThingId }),
    query: z.object({ shout: z.optional(z.enum(['yes', 'no'], 'must be yes or no')) }),
    response: { status: 200, schema: Plant },
  }),
  {
    tag: 'plants',
    errors: ['validationFailed', 'notFound'],
    summary: 'Read a thing',
    description: 'A fixture: the thing with this id, its name in capitals with `shout=yes`.',
    success: 'The thing.',
  },
);

export const putThing = defineOperation(
  defineCall({
    operationId: 'putThing',
    method: 'put',
    path: '/things/{id}',
    auth: 'bearer',
    params: z.object({ id: ThingId }),
    body: NewPlant,
    response: { status: 200, schema: Plant },
  }),
  {
    tag: 'plants',
    errors: ['validationFailed', 'unauthorized'],
    summary: 'Store a thing',
    description: 'A fixture: stores a thing under the id of the path.',
    success: 'The thing stored.',
  },
);

export const fixtureContract = { getThing, putThing } as const;

/** Handlers over an in-memory map of things (id 1 is a Fern). */
export function fixtureHandlers(): Implementations<typeof fixtureContract> {
  const things = new Map<number, Plant>([[1, { name: 'Fern' }]]);
  return {
    getThing: async ({ params, query }) => {
      const thing = things.get(params.id);
      if (!thing) throw new ApiError('notFound', `No thing with id ${params.id}`);
      return query.shout === 'yes' ? { ...thing, name: thing.name.toUpperCase() } : thing;
    },
    putThing: async ({ params, body }) => {
      const thing =
        body.tag === undefined ? { name: body.name } : { name: body.name, tag: body.tag };
      things.set(params.id, thing);
      return thing;
    },
  };
}
