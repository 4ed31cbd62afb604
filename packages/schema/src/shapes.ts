// `@plant-store/schema/shapes`: what a browser needs to call the API, and nothing else: the
// zod/mini schemas, the createPlant call, the validation message, an exact JSON writer. No
// OpenAPI prose, no error explanations, no JSON parser (the responses hold no int64: a browser
// reads them with JSON.parse). The full contract is the package's main entry.

export { describeValue } from './describe-value.ts';
export { ErrorBody } from './error-body.ts';
export { formatIssues } from './format-issues.ts';
export { INT64_MAX, INT64_MIN, Int64, isInt64 } from './int64.ts';
export {
  type CallInput,
  checkPart,
  defineCall,
  type HttpMethod,
  type OperationCall,
  type OperationInput,
  type OperationResult,
  type PartVerdict,
} from './operation.ts';
export { createPlantCall } from './operations/create-plant.ts';
export { NewPlant, type NewPlantInput, Plant } from './plant.ts';
export { RATE_LIMIT_HEADERS } from './rate-limit-headers.ts';
export { shortened } from './shortened.ts';
export { stringifyJson } from './stringify-json.ts';
export { VALIDATION_FAILED_CODE } from './validation-failed.ts';
