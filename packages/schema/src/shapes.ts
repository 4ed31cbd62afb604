// `@plant-store/schema/shapes`: what a browser needs to call the API, and nothing else: the
// zod/mini schemas, each operation's call (`createPlantCall`: contract.ts lists them), the
// validation message, an exact JSON writer. No OpenAPI prose, no error explanations, no JSON
// parser (the responses hold no int64: a browser reads them with JSON.parse). contract.ts's
// operations and `contract` come along but are `/* @__PURE__ */`: a bundler keeps only the calls
// a client uses (the client's bundle test checks that no prose is left). The full contract is
// the package's main entry.

export * from './contract.ts';
export { describeValue } from './describe-value.ts';
export { ErrorBody } from './error-body.ts';
export { formatIssues } from './format-issues.ts';
export { INT64_MAX, INT64_MIN, Int64, isInt64 } from './int64.ts';
export { NewPlant, type NewPlantInput, Plant } from './plant.ts';
export { RATE_LIMIT_HEADERS } from './rate-limit-headers.ts';
export { shortened } from './shortened.ts';
export { stringifyJson } from './stringify-json.ts';
export { VALIDATION_FAILED_CODE } from './validation-failed.ts';
