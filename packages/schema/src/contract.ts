import { createPlant } from './create-plant.ts';
import {
  getDocs,
  getDocsScript,
  getHealth,
  getIndex,
  getOpenApiDocument,
  getReadiness,
} from './operation-routes.ts';

export { createPlant } from './create-plant.ts';
export { createPlantCall } from './create-plant-call.ts';
export {
  getDocs,
  getDocsScript,
  getHealth,
  getIndex,
  getOpenApiDocument,
  getReadiness,
} from './operation-routes.ts';
export * from './route.ts';

/** Every operation of the API, by operationId. Adding a route = one entry here + one handler. */
export const contract = {
  createPlant,
  getHealth,
  getReadiness,
  getOpenApiDocument,
  getIndex,
  getDocs,
  getDocsScript,
} as const;
export type Contract = typeof contract;
