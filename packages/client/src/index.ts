export { createPlantStoreClient, type PlantStoreClient } from './client.ts';
export { CLIENT_DEFAULTS, type PlantStoreClientOptions } from './client-config.ts';
export { PlantStoreError } from './plant-store-error.ts';
export { PlantStoreNetworkError } from './plant-store-network-error.ts';
export { PlantStoreValidationError } from './plant-store-validation-error.ts';
export { type NewPlantVerdict, validateNewPlant } from './validate-new-plant.ts';
