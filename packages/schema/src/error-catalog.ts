import { fieldNames } from './plant-fields.ts';
import { VALIDATION_FAILED_CODE } from './validation-failed.ts';

/**
 * Every value the `error` field of an Error response can take. Codes are stable: a code's
 * meaning never changes, and new codes may be added. The first three digits are the HTTP
 * status the code is sent with.
 */
export const ERROR_CATALOG = {
  validationFailed: {
    code: VALIDATION_FAILED_CODE,
    status: 400,
    meaning:
      'The body is JSON but not a valid NewPlant; the message names the problems by field (the first five, then how many more).',
  },
  malformedJson: {
    code: 40002,
    status: 400,
    meaning: 'The body is not well-formed JSON (or repeats a key with different values).',
  },
  missingBody: {
    code: 40003,
    status: 400,
    meaning: 'The request has no body, or an empty one; a NewPlant is required.',
  },
  malformedRequest: {
    code: 40004,
    status: 400,
    meaning:
      'The HTTP request itself is malformed (request line, headers, chunked framing of the body, headers over 16 KiB, or no Host header in HTTP/1.1); the connection is closed.',
  },
  jsonTooDeep: {
    code: 40005,
    status: 400,
    meaning:
      'The body is JSON that nests arrays and objects deeper than 64 levels (a NewPlant needs 1).',
  },
  unauthorized: {
    code: 40101,
    status: 401,
    meaning:
      "The bearer credential is missing, malformed, unknown, expired or revoked; only a well-formed bearer token that is refused counts toward the client address's budget of refused tokens.",
  },
  notFound: {
    code: 40401,
    status: 404,
    meaning: 'No operation exists at this path.',
  },
  methodNotAllowed: {
    code: 40501,
    status: 405,
    meaning: 'The path exists but not with this method; the Allow header lists the methods.',
  },
  requestTimeout: {
    code: 40801,
    status: 408,
    meaning:
      "The request body did not arrive completely within the server's request timeout (counted from the start of the request); the connection is closed.",
  },
  conflict: {
    code: 40901,
    status: 409,
    meaning: `A plant with this id already exists with a different ${fieldNames('or')}. (The same id with the same ${fieldNames('and')} is a safe replay and returns 200.)`,
  },
  payloadTooLarge: {
    code: 41301,
    status: 413,
    meaning: "The body is larger than the server's configured body limit.",
  },
  unsupportedMediaType: {
    code: 41501,
    status: 415,
    meaning: 'The body is not sent as application/json.',
  },
  expectationFailed: {
    code: 41701,
    status: 417,
    meaning:
      'The request carries an Expect header other than 100-continue, the only one supported.',
  },
  rateLimited: {
    code: 42901,
    status: 429,
    meaning:
      'Too many requests: this credential is over its rate limit, or this client address spent its budget of refused tokens (an unknown token is then refused without a lookup; a valid one is still served); retry after the Retry-After seconds.',
  },
  internal: {
    code: 50001,
    status: 500,
    meaning: 'An unexpected failure in the server; it is logged, and nothing was stored.',
  },
  storeUnavailable: {
    code: 50301,
    status: 503,
    meaning: 'The store cannot be reached right now; retry after the Retry-After seconds.',
  },
} as const satisfies Record<string, { code: number; status: number; meaning: string }>;

export type ErrorName = keyof typeof ERROR_CATALOG;
export type ErrorEntry = (typeof ERROR_CATALOG)[ErrorName];

/** The catalog as a list, in code order. */
export const ERROR_ENTRIES: readonly (ErrorEntry & { name: ErrorName })[] = (
  Object.keys(ERROR_CATALOG) as ErrorName[]
)
  .map((name) => ({ name, ...ERROR_CATALOG[name] }))
  .sort((a, b) => a.code - b.code);

/** The HTTP statuses the API can answer with an Error body, ascending. */
export const ERROR_STATUSES: readonly number[] = [
  ...new Set(ERROR_ENTRIES.map((entry) => entry.status)),
].sort((a, b) => a - b);
