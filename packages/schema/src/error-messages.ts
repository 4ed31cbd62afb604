import type { JsonTooDeepError, JsonTooWideError, MalformedJsonError } from './json.ts';
import { fieldNames } from './plant-fields.ts';
import { shortened } from './shortened.ts';

/** How many characters of a request's path a message quotes. */
const PATH_MAX_LENGTH = 100;

/**
 * The `message` of every Error answer the server sends, by catalog name and situation (a 400
 * for an invalid NewPlant is `formatIssues` of its problems). The server answers with these, and
 * the OpenAPI document builds each example from them, so no example shows a message the server
 * never sends. What a caller sent (a path, a media type) is quoted `shortened`: a message stays
 * short whatever the request.
 *
 * @example
 * ERROR_MESSAGES.conflict(10n); // `A plant with id 10 already exists with a different ${fieldNames('or')}`
 */
export const ERROR_MESSAGES = {
  validationFailed: {
    /** A body whose object has more than `maxMembers` members: not read past the one too many. */
    tooManyProperties: (error: JsonTooWideError, maxMembers: number) =>
      `(body): has more than ${maxMembers} properties: ${[
        ...error.firstKeys.map((key) => `\`${shortened(key)}\``),
        '…',
      ].join(', ')}`,
  },
  malformedJson: {
    /** `error` is what `parseJson` threw, e.g. `is not valid JSON (at character 17)`. */
    notJson: (error: MalformedJsonError) => `Request body ${error.message}`,
    notUtf8: 'Request body is not valid UTF-8',
    undecodable: 'Request body could not be decoded as its Content-Encoding says',
    cutShort: 'Request body ended before its declared length',
  },
  jsonTooDeep: (error: JsonTooDeepError) => `Request body ${error.message}`,
  missingBody: 'Request body is required: send a NewPlant as application/json',
  malformedRequest: {
    noHost: 'HTTP/1.1 requests must have a Host header',
    tooManyHeaders: (max: number) => `Request has more than ${max} header fields`,
    headersTooLarge: 'Request headers are too large',
    unparsable: 'Malformed HTTP request',
    tooManyPieces: (minBytes: number) =>
      `Request body arrived in pieces of under ${minBytes} bytes on average: send it in fewer, larger writes`,
  },
  unauthorized: {
    missing: 'A bearer credential is required',
    refused: 'The bearer credential is not valid',
  },
  notFound: (method: string, path: string) =>
    `No operation at ${method} ${shortened(path, PATH_MAX_LENGTH)}`,
  methodNotAllowed: (method: string, path: string, allowed: readonly string[]) =>
    `${method} is not allowed on ${shortened(path, PATH_MAX_LENGTH)}; allowed: ${allowed.join(', ')}`,
  requestTimeout: (seconds: number) => `Request body did not arrive within ${seconds} s`,
  conflict: (id: bigint) =>
    `A plant with id ${id} already exists with a different ${fieldNames('or')}`,
  payloadTooLarge: (limitBytes?: number) =>
    limitBytes === undefined
      ? 'Request body is too large'
      : `Request body is larger than ${limitBytes} bytes`,
  unsupportedMediaType: {
    /** `given` is the request's media type, or `no content type`. */
    notJson: (given: string) => `Request body must be application/json, not ${shortened(given)}`,
    coding:
      'Request body must be application/json in UTF-8, with no content encoding other than gzip or deflate',
  },
  expectationFailed: 'The only expectation this server meets is Expect: 100-continue',
  /** `who`: over the credential's own limit, the address's refused-credential limit, or its limit without a credential. */
  rateLimited: (who: 'credential' | 'refused credential' | 'address', seconds: number) =>
    `${who === 'credential' ? 'Too many requests for this credential' : who === 'address' ? 'Too many requests from this address' : 'Too many requests with a refused credential from this address'}; retry after ${seconds} second${seconds === 1 ? '' : 's'}`,
  internal: 'Internal server error',
  storeUnavailable: {
    unreachable: 'The store is unavailable; retry later',
    /** `cause` is the code of the store's last failure, e.g. `SQLITE_FULL`. */
    notReady: (cause: string) => `Not ready: the store cannot commit (${cause})`,
    shuttingDown: 'Not ready: shutting down',
  },
} as const;
