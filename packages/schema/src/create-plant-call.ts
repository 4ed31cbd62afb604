import { NewPlant, Plant } from './plant.ts';
import { defineRouteCall } from './route.ts';

/**
 * What a client sends `POST /plants` with: the call of the `createPlant` route, without what only
 * the server and the document use (its tag, its catalog errors), so a browser bundle holds only it.
 */
export const createPlantCall = defineRouteCall({
  operationId: 'createPlant',
  method: 'post',
  path: '/plants',
  auth: 'bearer',
  body: NewPlant,
  response: { status: 200, schema: Plant },
});
