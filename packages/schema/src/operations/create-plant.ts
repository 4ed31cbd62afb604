import { defineCall, defineOperation } from '../operation.ts';
import { NewPlant, Plant } from '../plant.ts';

/** `POST /plants`: what a client sends it with (a browser bundles only this). */
export const createPlantCall = defineCall({
  operationId: 'createPlant',
  method: 'post',
  path: '/plants',
  auth: 'bearer',
  body: NewPlant,
  response: { status: 200, schema: Plant },
});

/** `POST /plants`: creates a plant, or replays an identical create. */
export const createPlant = /* @__PURE__ */ defineOperation(createPlantCall, {
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
  summary: 'Create a plant',
  description: 'Creates a new plant in the store and returns it (without its id).',
  success: 'Plant response',
  examples: {
    request: {
      withTag: {
        summary: 'A plant with a tag',
        value: { id: 10, name: 'Monstera', tag: 'indoor' },
      },
      withoutTag: {
        summary: 'A plant without a tag (tag is optional)',
        value: { id: 11, name: 'Fern' },
      },
    },
    response: {
      withTag: {
        summary: 'Created, or an identical replay: the plant without its id',
        description:
          'Sending `{"id": 10, "name": "Monstera", "tag": "indoor"}` again answers the same 200.',
        value: { name: 'Monstera', tag: 'indoor' },
      },
      withoutTag: {
        summary: 'A plant created without a tag has no tag property',
        value: { name: 'Fern' },
      },
    },
  },
});
