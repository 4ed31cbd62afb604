import { createPlant } from './operations/create-plant.ts';
import { getHealth, getIndex, getOpenApiDocument, getReadiness } from './operations/service.ts';

export * from './operation.ts';
export { createPlant, createPlantCall } from './operations/create-plant.ts';
export { getHealth, getIndex, getOpenApiDocument, getReadiness } from './operations/service.ts';

/**
 * Every operation of the API, by operationId: the server routes, the client calls and the
 * OpenAPI document list these. Adding one: docs/architecture.md, "Adding an operation".
 */
export const contract = {
  createPlant,
  getHealth,
  getReadiness,
  getOpenApiDocument,
  getIndex,
} as const;
export type Contract = typeof contract;
