import { expect, it } from 'vitest';
import { ERROR_MESSAGES as M } from './error-messages.ts';
import {
  type JsonTooDeepError,
  JsonTooWideError,
  type MalformedJsonError,
  parseJson,
} from './json.ts';
import { fieldNames } from './plant-fields.ts';

function thrownBy(text: string): Error {
  try {
    parseJson(text);
  } catch (error) {
    if (error instanceof Error) return error;
  }
  throw new Error(`${text} parsed`);
}

const notJson = thrownBy('{"id": 1,}');
const tooDeep = thrownBy('['.repeat(65));
const long = (char: string, length: number) => char.repeat(length);

/** Each message by its place in ERROR_MESSAGES, built from what the server would give it. */
const MESSAGES: Record<string, [message: string, expected: string]> = {
  'validationFailed.tooManyProperties': [
    M.validationFailed.tooManyProperties(new JsonTooWideError(['id', long('k', 50)]), 16),
    `(body): has more than 16 properties: \`id\`, \`${long('k', 39)}…\`, …`,
  ],
  'malformedJson.notJson': [
    M.malformedJson.notJson(notJson as MalformedJsonError),
    'Request body is not valid JSON (at character 9)',
  ],
  'malformedJson.notUtf8': [M.malformedJson.notUtf8, 'Request body is not valid UTF-8'],
  'malformedJson.undecodable': [
    M.malformedJson.undecodable,
    'Request body could not be decoded as its Content-Encoding says',
  ],
  'malformedJson.cutShort': [
    M.malformedJson.cutShort,
    'Request body ended before its declared length',
  ],
  jsonTooDeep: [
    M.jsonTooDeep(tooDeep as JsonTooDeepError),
    'Request body nests arrays and objects deeper than 64 levels (at character 64)',
  ],
  missingBody: [M.missingBody, 'Request body is required: send a NewPlant as application/json'],
  'malformedRequest.noHost': [
    M.malformedRequest.noHost,
    'HTTP/1.1 requests must have a Host header',
  ],
  'malformedRequest.headersTooLarge': [
    M.malformedRequest.headersTooLarge,
    'Request headers are too large',
  ],
  'malformedRequest.unparsable': [M.malformedRequest.unparsable, 'Malformed HTTP request'],
  'unauthorized.missing': [M.unauthorized.missing, 'A bearer credential is required'],
  'unauthorized.refused': [M.unauthorized.refused, 'The bearer credential is not valid'],
  notFound: [
    M.notFound('DELETE', `/p${long('x', 200)}`),
    `No operation at DELETE /p${long('x', 97)}…`,
  ],
  methodNotAllowed: [
    M.methodNotAllowed('GET', '/plants', ['POST', 'PUT']),
    'GET is not allowed on /plants; allowed: POST, PUT',
  ],
  requestTimeout: [M.requestTimeout(12.5), 'Request body did not arrive within 12.5 s'],
  conflict: [
    M.conflict(-(2n ** 63n)),
    `A plant with id -9223372036854775808 already exists with a different ${fieldNames('or')}`,
  ],
  payloadTooLarge: [M.payloadTooLarge(1234), 'Request body is larger than 1234 bytes'],
  'unsupportedMediaType.notJson': [
    M.unsupportedMediaType.notJson(`text/${long('p', 60)}`),
    `Request body must be application/json, not text/${long('p', 34)}…`,
  ],
  'unsupportedMediaType.coding': [
    M.unsupportedMediaType.coding,
    'Request body must be application/json in UTF-8, with no content encoding other than gzip or deflate',
  ],
  expectationFailed: [
    M.expectationFailed,
    'The only expectation this server meets is Expect: 100-continue',
  ],
  rateLimited: [
    M.rateLimited('credential', 1),
    'Too many requests for this credential; retry after 1 second',
  ],
  internal: [M.internal, 'Internal server error'],
  'storeUnavailable.unreachable': [
    M.storeUnavailable.unreachable,
    'The store is unavailable; retry later',
  ],
  'storeUnavailable.notReady': [
    M.storeUnavailable.notReady('SQLITE_FULL'),
    'Not ready: the store cannot commit (SQLITE_FULL)',
  ],
  'storeUnavailable.shuttingDown': [M.storeUnavailable.shuttingDown, 'Not ready: shutting down'],
};

function leaves(value: object, prefix = ''): string[] {
  return Object.entries(value).flatMap(([key, child]) =>
    typeof child === 'object' ? leaves(child, `${prefix}${key}.`) : [`${prefix}${key}`],
  );
}

/** No code sends these: delete them, or give each a case above. */
const UNSENT = ['malformedRequest.tooManyHeaders', 'malformedRequest.tooManyPieces'];

it('has a case here for each message some code sends', () => {
  expect(
    Object.keys(MESSAGES).sort(),
    'packages/schema/src/error-messages.test.ts: give each message of error-catalog.ts a case in MESSAGES',
  ).toEqual(
    leaves(M)
      .filter((key) => !UNSENT.includes(key))
      .sort(),
  );
});

it.each(Object.entries(MESSAGES))('%s names what it is given', (_, [message, expected]) => {
  expect(message).toBe(expected);
});

it('writes each message as one line with no closing period', () => {
  for (const [message] of Object.values(MESSAGES)) {
    expect(message).toMatch(/^(?:[A-Z]|\(body\): )[^\n]*[^.\s]$/);
  }
});

it('counts a payload limit only when it has one', () => {
  expect(M.payloadTooLarge()).toBe('Request body is too large');
  expect(M.payloadTooLarge(0)).toBe('Request body is larger than 0 bytes');
});

it('says whose rate limit was hit, and the seconds in the right number', () => {
  expect(M.rateLimited('refused credential', 2)).toBe(
    'Too many requests with a refused credential from this address; retry after 2 seconds',
  );
});
