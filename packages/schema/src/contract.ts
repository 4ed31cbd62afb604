import { createPlant } from './operations/create-plant.ts';
import { getHealth, getIndex, getOpenApiDocument, getReadiness } from './operations/service.ts';

export * from './operation.ts';
// Each operation and its call: the server and the document read `contract`, a browser imports
// a call from `@plant-store/schema/shapes`, which re-exports this module (a bundler drops the
// `/* @__PURE__ */` operations it does not use, and `contract` with them).
export { createPlant, createPlantCall } from './operations/create-plant.ts';
export { getHealth, getIndex, getOpenApiDocument, getReadiness } from './operations/service.ts';
export * from './params.ts';

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
