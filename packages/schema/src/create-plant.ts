import { NewPlant, Plant } from './plant.ts';
import { defineRoute } from './route.ts';

/** `POST /plants`: the one operation the client calls (its own module, so a bundle holds only it). */
export const createPlant = defineRoute({
  operationId: 'createPlant',
  method: 'post',
  path: '/plants',
  tag: 'plants',
  auth: 'bearer',
  body: NewPlant,
  response: { status: 200, schema: Plant },
  errors: [
    'validationFailed',
    'malformedJson',
    'jsonTooDeep',
    'missingBody',
    'malformedRequest',
    'unauthorized',
    'requestTimeout',
    'conflict',
    'payloadTooLarge',
    'unsupportedMediaType',
    'expectationFailed',
    'rateLimited',
    'internal',
    'storeUnavailable',
  ],
});
