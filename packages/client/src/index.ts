export type { NewPlantInput, Plant } from '@plant-store/schema/shapes';
export { createPlantStoreClient, type PlantStoreClient } from './client.ts';
export {
  type ErrorCode,
  PlantStoreError,
  PlantStoreNetworkError,
  PlantStoreValidationError,
} from './errors.ts';
export { CLIENT_DEFAULTS, type PlantStoreClientOptions } from './options.ts';
export { Pacer } from './pacer.ts';
export { type NewPlantVerdict, validateNewPlant } from './validate.ts';
