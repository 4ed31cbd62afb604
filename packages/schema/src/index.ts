// The contract: every operation, its call and the helpers that declare them.
export * from './contract.ts';
export { describeValue } from './describe-value.ts';
export { ErrorBody } from './error-body.ts';
export {
  ERROR_CATALOG,
  ERROR_ENTRIES,
  ERROR_STATUSES,
  type ErrorEntry,
  type ErrorName,
} from './error-catalog.ts';
export { ERROR_MESSAGES } from './error-messages.ts';
export { formatIssues, LISTED_PROBLEMS } from './format-issues.ts';
export { INT64_MAX, INT64_MIN, Int64, isInt64 } from './int64.ts';
export {
  type FlatRecordLimits,
  JsonTooDeepError,
  JsonTooWideError,
  MAX_JSON_DEPTH,
  MalformedJsonError,
  type ParseJsonOptions,
  parseJson,
  parseJsonNumber,
} from './json.ts';
export { NEW_PLANT_JSON_LIMITS } from './new-plant-json-limits.ts';
export {
  NewPlant,
  type NewPlantInput,
  Plant,
  toPlant,
} from './plant.ts';
export {
  FIELD_LIST,
  FIELDS,
  type Field,
  type FieldType,
  fieldNames,
  NAME_MAX_LENGTH,
  PLANT_FIELDS,
  type PlantField,
  plantOf,
  TAG_MAX_LENGTH,
} from './plant-fields.ts';
export { RATE_LIMIT_HEADERS } from './rate-limit-headers.ts';
export { QUOTED_MAX_LENGTH, shortened } from './shortened.ts';
export { stringifyJson } from './stringify-json.ts';
export { VALIDATION_FAILED_CODE } from './validation-failed.ts';
