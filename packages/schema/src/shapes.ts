// `@plant-store/schema/shapes`: what a browser needs to call the API, and nothing else: the
// zod/mini schemas, the createPlant route and its call, the validation message, an exact JSON writer. No
// OpenAPI prose, no error explanations, no JSON parser (the responses hold no int64: a browser
// reads them with JSON.parse). The full contract is the package's main entry.
export { createPlant } from './create-plant.ts';
export { createPlantCall } from './create-plant-call.ts';
export { describeValue } from './describe-value.ts';
export { ErrorBody } from './error-body.ts';
export { formatIssues } from './format-issues.ts';
export { INT64_MAX, INT64_MIN, Int64, isInt64 } from './int64.ts';
export { NewPlant, type NewPlantInput, Plant } from './plant.ts';
export { RATE_LIMIT_HEADERS } from './rate-limit-headers.ts';
export type {
  HttpMethod,
  Route,
  RouteBody,
  RouteCall,
  RouteInput,
  RouteResult,
} from './route.ts';
export { shortened } from './shortened.ts';
export { stringifyJson } from './stringify-json.ts';
export { VALIDATION_FAILED_CODE } from './validation-failed.ts';
