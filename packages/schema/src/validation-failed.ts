/**
 * The `error` code of a 400 for a body that is JSON but not a valid NewPlant (the catalog's
 * `validationFailed`): on its own so a browser bundle that needs only this code (the client's
 * `PlantStoreValidationError`) does not carry the catalog's explanations.
 */
export const VALIDATION_FAILED_CODE = 40001;
