import { createPlantCall } from './create-plant-call.ts';
import { routeOf } from './route.ts';

/** `POST /plants`: the one operation the client calls (its call is `createPlantCall`). */
export const createPlant = /* @__PURE__ */ routeOf(createPlantCall, {
  tag: 'plants',
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
