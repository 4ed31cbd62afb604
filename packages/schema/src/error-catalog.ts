import { formatIssues } from './format-issues.ts';
import {
  JsonTooDeepError,
  type JsonTooWideError,
  MAX_JSON_DEPTH,
  MalformedJsonError,
  parseJson,
} from './json.ts';
import { NewPlant } from './plant.ts';
import { fieldNames } from './plant-fields.ts';
import { shortened } from './shortened.ts';
import { VALIDATION_FAILED_CODE } from './validation-failed.ts';

/** How many characters of a request's path a message quotes. */
const PATH_MAX_LENGTH = 100;

/**
 * The `BODY_LIMIT` the 413 example was answered with: a value chosen for the example (its note
 * names it), so the document carries no server default.
 */
export const EXAMPLE_BODY_LIMIT_BYTES = 1000;
/** The request timeout of the 408 example, likewise an example value (not the server's). */
export const EXAMPLE_REQUEST_TIMEOUT_SECONDS = 10;

/** What `attempt` throws (it must throw a `type`): an example takes its text from the real failure. */
function thrownBy<E>(type: abstract new (...args: never[]) => E, attempt: () => unknown): E {
  try {
    attempt();
  } catch (error) {
    if (error instanceof type) return error;
  }
  throw new Error(`the example was expected to throw a ${type.name}`);
}

/** One error of the catalog: everything said of it, in one place. */
export interface CatalogEntry<
  Code extends number = number,
  Status extends number = number,
  Message = unknown,
> {
  /** The `error` of the Error body: stable, never reused; its first three digits are `status`. */
  readonly code: Code;
  readonly status: Status;
  /** What it means: the error tables (the document's, docs/api.md's) and its example's summary. */
  readonly meaning: string;
  /**
   * The description of a document's `status` response that lists only this code; with several
   * codes, each one's after its code. Required unless every such response is described by
   * openapi/prose.ts's shared sentence for the status (the document's build names a missing one).
   */
  readonly summary?: string;
  /**
   * The `message` the server answers with: a text, a function of the situation, or an object of
   * either by situation. `ERROR_MESSAGES` (error-messages.ts) lists these by name.
   */
  readonly message: Message;
  /** The document's example `message`, built with `message` as the server builds it. */
  readonly example: (message: Message) => string;
  /** What the document says of the example beyond its summary. */
  readonly exampleNote?: string;
}

/** One entry, its code, status and message types kept (helper for inference only). */
function entry<const Code extends number, const Status extends number, const Message>(
  value: CatalogEntry<Code, Status, Message>,
): CatalogEntry<Code, Status, Message> {
  return value;
}

/**
 * Every value the `error` field of an Error response can take, each with its status, meaning,
 * response summary, message and example: a new error is one entry here (the OpenAPI document and
 * `ERROR_MESSAGES` derive from it). Codes are stable: a code's meaning never changes, and new
 * codes may be added. The first three digits are the HTTP status the code is sent with. What a
 * caller sent (a path, a media type) is quoted `shortened`: a message stays short whatever the
 * request.
 */
export const ERROR_CATALOG = {
  validationFailed: entry({
    code: VALIDATION_FAILED_CODE,
    status: 400,
    meaning:
      'The body is JSON but not a valid NewPlant; the message names the problems by field (the first five, then how many more).',
    summary: 'The body or a parameter is not valid; the message names the problems.',
    // Any other message is `formatIssues` of the problems (the example: the real schema's).
    message: {
      /** A body whose object has more than `maxMembers` members: not read past the one too many. */
      tooManyProperties: (error: JsonTooWideError, maxMembers: number) =>
        `(body): has more than ${maxMembers} properties: ${[
          ...error.firstKeys.map((key) => `\`${shortened(key)}\``),
          '…',
        ].join(', ')}`,
    },
    example: () => {
      const invalid = NewPlant.safeParse({ id: 10, wheels: 4 });
      if (invalid.success) throw new Error('the example was expected to be invalid');
      return formatIssues(invalid.error.issues);
    },
  }),
  malformedJson: entry({
    code: 40002,
    status: 400,
    meaning: 'The body is not well-formed JSON (or repeats a key with different values).',
    summary: 'The request body is not well-formed JSON.',
    message: {
      /** `error` is what `parseJson` threw, e.g. `is not valid JSON (at character 17)`. */
      notJson: (error: MalformedJsonError) => `Request body ${error.message}`,
      notUtf8: 'Request body is not valid UTF-8',
      undecodable: 'Request body could not be decoded as its Content-Encoding says',
      cutShort: 'Request body ended before its declared length',
    },
    example: (message) =>
      message.notJson(thrownBy(MalformedJsonError, () => parseJson('{"id": 10, "name": }'))),
  }),
  missingBody: entry({
    code: 40003,
    status: 400,
    meaning: 'The request has no body, or an empty one; a NewPlant is required.',
    summary: 'The request has no body.',
    message: 'Request body is required: send a NewPlant as application/json',
    example: (message) => message,
  }),
  malformedRequest: entry({
    code: 40004,
    status: 400,
    meaning:
      'The HTTP request itself is malformed (request line, headers, chunked framing of the body, headers over 16 KiB, or no Host header in HTTP/1.1); the connection is closed.',
    summary: 'The HTTP request itself is malformed; the connection is closed.',
    message: {
      noHost: 'HTTP/1.1 requests must have a Host header',
      tooManyHeaders: (max: number) => `Request has more than ${max} header fields`,
      headersTooLarge: 'Request headers are too large',
      unparsable: 'Malformed HTTP request',
      tooManyPieces: (minBytes: number) =>
        `Request body arrived in pieces of under ${minBytes} bytes on average: send it in fewer, larger writes`,
    },
    example: (message) => message.unparsable,
  }),
  jsonTooDeep: entry({
    code: 40005,
    status: 400,
    meaning:
      'The body is JSON that nests arrays and objects deeper than 64 levels (a NewPlant needs 1).',
    summary: 'The request body nests arrays and objects too deeply.',
    message: (error: JsonTooDeepError) => `Request body ${error.message}`,
    example: (message) =>
      message(
        thrownBy(JsonTooDeepError, () =>
          parseJson(`${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`),
        ),
      ),
  }),
  unauthorized: entry({
    code: 40101,
    status: 401,
    meaning:
      "The bearer credential is missing, malformed, unknown, expired or revoked; only a well-formed bearer token that is refused counts toward the client address's budget of refused tokens.",
    summary: 'The bearer credential is missing or not valid.',
    message: {
      missing: 'A bearer credential is required',
      refused: 'The bearer credential is not valid',
    },
    example: (message) => message.missing,
  }),
  notFound: entry({
    code: 40401,
    status: 404,
    meaning: 'No operation exists at this path.',
    summary:
      'No operation exists at the requested path: any unknown path answers this (for example a server URL without its path prefix).',
    message: (method: string, path: string) =>
      `No operation at ${method} ${shortened(path, PATH_MAX_LENGTH)}`,
    example: (message) => message('GET', '/plant'),
  }),
  methodNotAllowed: entry({
    code: 40501,
    status: 405,
    meaning: 'The path exists but not with this method; the Allow header lists the methods.',
    summary:
      'The path exists, but not with the method sent (e.g. `GET /plants`); `Allow` lists the methods it supports.',
    message: (method: string, path: string, allowed: readonly string[]) =>
      `${method} is not allowed on ${shortened(path, PATH_MAX_LENGTH)}; allowed: ${allowed.join(', ')}`,
    example: (message) => message('GET', '/plants', ['POST']),
  }),
  requestTimeout: entry({
    code: 40801,
    status: 408,
    meaning:
      "The request body did not arrive completely within the server's request timeout (counted from the start of the request); the connection is closed.",
    summary: 'The request body did not arrive within the request timeout.',
    message: (seconds: number) => `Request body did not arrive within ${seconds} s`,
    example: (message) => message(EXAMPLE_REQUEST_TIMEOUT_SECONDS),
    exampleNote: `As a server with a ${EXAMPLE_REQUEST_TIMEOUT_SECONDS}-s request timeout answers: the number in the message is the server's request timeout.`,
  }),
  conflict: entry({
    code: 40901,
    status: 409,
    meaning: `A plant with this id already exists with a different ${fieldNames('or')}. (The same id with the same ${fieldNames('and')} is a safe replay and returns 200.)`,
    summary: `The id is taken by a plant with another ${fieldNames('or')}.`,
    /** @example conflict(10n); // `A plant with id 10 already exists with a different ${fieldNames('or')}` */
    message: (id: bigint) =>
      `A plant with id ${id} already exists with a different ${fieldNames('or')}`,
    example: (message) => message(10n),
  }),
  payloadTooLarge: entry({
    code: 41301,
    status: 413,
    meaning: "The body is larger than the server's configured body limit.",
    summary: 'The request body is over the size limit.',
    message: (limitBytes?: number) =>
      limitBytes === undefined
        ? 'Request body is too large'
        : `Request body is larger than ${limitBytes} bytes`,
    // What a server started with the example's BODY_LIMIT sends (apps/server/test/error-examples.test.ts
    // starts one and compares): an example value, not the server's default.
    example: (message) => message(EXAMPLE_BODY_LIMIT_BYTES),
    exampleNote: `As a server started with \`BODY_LIMIT=${EXAMPLE_BODY_LIMIT_BYTES}\` answers: the number in the message is the server's configured body limit.`,
  }),
  unsupportedMediaType: entry({
    code: 41501,
    status: 415,
    meaning: 'The body is not sent as application/json.',
    summary: 'The request body is not application/json.',
    message: {
      /** `given` is the request's media type, or `no content type`. */
      notJson: (given: string) => `Request body must be application/json, not ${shortened(given)}`,
      coding:
        'Request body must be application/json in UTF-8, with no content encoding other than gzip or deflate',
    },
    example: (message) => message.notJson('text/plain'),
  }),
  expectationFailed: entry({
    code: 41701,
    status: 417,
    meaning:
      'The request carries an Expect header other than 100-continue, the only one supported.',
    summary: 'The request expects something other than `100-continue`.',
    message: 'The only expectation this server meets is Expect: 100-continue',
    example: (message) => message,
  }),
  rateLimited: entry({
    code: 42901,
    status: 429,
    meaning:
      'Too many requests: this credential is over its rate limit, or this client address spent its budget of refused tokens (an unknown token is then refused without a lookup; a valid one is still served); retry after the Retry-After seconds.',
    summary: 'Over a rate limit (per credential, or per client address for refused credentials).',
    /** `who`: over the credential's own limit, the address's refused-credential limit, or its limit without a credential. */
    message: (who: 'credential' | 'refused credential' | 'address', seconds: number) =>
      `${who === 'credential' ? 'Too many requests for this credential' : who === 'address' ? 'Too many requests from this address' : 'Too many requests with a refused credential from this address'}; retry after ${seconds} second${seconds === 1 ? '' : 's'}`,
    example: (message) => message('credential', 1),
  }),
  internal: entry({
    code: 50001,
    status: 500,
    meaning: 'An unexpected failure in the server; it is logged, and nothing was stored.',
    summary: 'An unexpected server failure.',
    message: 'Internal server error',
    example: (message) => message,
  }),
  storeUnavailable: entry({
    code: 50301,
    status: 503,
    meaning: 'The store cannot be reached right now; retry after the Retry-After seconds.',
    summary: 'The store is unreachable; retry later.',
    message: {
      unreachable: 'The store is unavailable; retry later',
      /** `cause` is the code of the store's last failure, e.g. `SQLITE_FULL`. */
      notReady: (cause: string) => `Not ready: the store cannot commit (${cause})`,
      shuttingDown: 'Not ready: shutting down',
    },
    example: (message) => message.unreachable,
  }),
};

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

/** The message of an entry, by a name of the catalog. */
export type ErrorMessages = {
  readonly [Name in ErrorName]: (typeof ERROR_CATALOG)[Name]['message'];
};

/** Each entry's `message`, by name (`ERROR_MESSAGES`, error-messages.ts). */
export const messagesOf = (): ErrorMessages =>
  Object.fromEntries(
    Object.entries(ERROR_CATALOG).map(([name, { message }]) => [name, message]),
  ) as ErrorMessages;
