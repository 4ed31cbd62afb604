import { isUtf8 } from 'node:buffer';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { contract, type OperationCall } from '@plant-store/schema';
import fc from 'fast-check';
import { DEFAULTS } from '../../src/config.ts';
import { anyCodePoint, membersText, newPlantMembers, plainPlantMembers } from './arbitraries.ts';
import type { RawRequest } from './exchange.ts';
import { type PlantFields, verdictOf } from './oracle.ts';

/** What the server should answer to a generated request. */
export type Expected =
  /** This error (one of these codes, when a list). */
  | { readonly kind: 'error'; readonly status: number; readonly code: number | readonly number[] }
  /** A valid NewPlant: 200, or 409 when its id is already stored with other fields. */
  | { readonly kind: 'create'; readonly id: bigint; readonly plant: PlantFields }
  /** A body whose meaning the test does not predict: 400, or 200/409 for a valid NewPlant. */
  | { readonly kind: 'body' };

/** A generated request and the answer it deserves. */
export interface FuzzCase {
  readonly request: RawRequest;
  readonly expected: Expected;
  /** The body before any content coding (what the server should read). */
  readonly decoded?: Uint8Array;
}

/** The request body limit the fuzzed server runs with (startTestServer's: BODY_LIMIT's default). */
export const FUZZ_BODY_LIMIT = DEFAULTS.bodyLimitBytes;

const error = (status: number, code: number | readonly number[]): Expected => ({
  kind: 'error',
  status,
  code,
});

type Auth = { readonly valid: boolean; readonly header?: (token: string) => string };

/** Authorization headers: accepted spellings, and every kind of refused one. */
function auth(): fc.Arbitrary<Auth> {
  const valid = fc.constantFrom<Auth>(
    { valid: true, header: (t) => `Bearer ${t}` },
    { valid: true, header: (t) => `bearer ${t}` },
    { valid: true, header: (t) => `BEARER ${t}` },
    { valid: true, header: (t) => `Bearer  ${t}` },
    { valid: true, header: (t) => `Bearer ${t} ` },
  );
  const invalid = fc.constantFrom<Auth>(
    { valid: false },
    { valid: false, header: () => '' },
    { valid: false, header: () => 'Bearer' },
    { valid: false, header: () => 'Bearer ' },
    { valid: false, header: (t) => `Basic ${Buffer.from(`user:${t}`).toString('base64')}` },
    { valid: false, header: (t) => `Token ${t}` },
    { valid: false, header: (t) => `Bearer\t${t}` },
    { valid: false, header: (t) => `${t}` },
    { valid: false, header: (t) => `Bearer ${t}x` },
    { valid: false, header: (t) => `Bearer ${t.slice(0, -1)}` },
    { valid: false, header: (t) => `Bearer ${t.toUpperCase()}` },
    { valid: false, header: (t) => `Bearer ${t} ${t}` },
    { valid: false, header: (t) => `Bearer ${t},${t}` },
    { valid: false, header: () => `Bearer ${'A'.repeat(8000)}` },
    { valid: false, header: () => 'Bearer tok@en!' },
    { valid: false, header: () => 'Bearer \u00e9\u00e8' },
    { valid: false, header: () => 'Bearer ==' },
  );
  return fc.oneof({ weight: 9, arbitrary: valid }, { weight: 2, arbitrary: invalid });
}

/** Content types: JSON ones in UTF-8 (with odd parameters), others, and none. */
function contentType(): fc.Arbitrary<{ json: boolean; value?: string }> {
  const json = fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'application/json;charset=UTF-8',
    'APPLICATION/JSON',
    'application/json; foo="bar;baz"',
    'application/json;',
    'application/vnd.api+json',
    'application/merge-patch+json; charset=utf-8',
  );
  const notJson = fc.constantFrom(
    // JSON in a charset other than UTF-8 (RFC 8259 §8.1) is refused like another media type.
    'application/json; charset=latin1',
    'application/json; charset=utf-16',
    'text/plain',
    'text/json',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/jsonx',
    'application/+json',
    'application/xml',
    '*/*',
    'application',
    '',
  );
  return fc.oneof(
    { weight: 12, arbitrary: json.map((value) => ({ json: true, value })) },
    { weight: 2, arbitrary: notJson.map((value) => ({ json: false, value })) },
    { weight: 1, arbitrary: fc.constant({ json: false }) },
  );
}

type Encoding = 'none' | 'identity' | 'gzip' | 'deflate' | 'br' | 'corrupt' | 'unsupported';

function encoding(): fc.Arbitrary<Encoding> {
  return fc.oneof(
    { weight: 16, arbitrary: fc.constant('none' as const) },
    {
      weight: 4,
      arbitrary: fc.constantFrom<Encoding>('identity', 'gzip', 'deflate', 'br', 'corrupt'),
    },
    { weight: 1, arbitrary: fc.constant('unsupported' as const) },
  );
}

type Body =
  | { readonly kind: 'none' }
  | { readonly kind: 'empty' | 'blank'; readonly text: string }
  | { readonly kind: 'plant'; readonly text: string; readonly expected: Expected }
  | { readonly kind: 'malformed'; readonly text: string }
  | { readonly kind: 'unknown'; readonly bytes: Uint8Array };

function body(): fc.Arbitrary<Body> {
  const plant = fc.oneof(newPlantMembers(), plainPlantMembers()).chain((members) =>
    membersText()(members).map((text): Body => {
      const verdict = verdictOf(members);
      return {
        kind: 'plant',
        text,
        expected: verdict.kind === 'create' ? verdict : error(verdict.status, verdict.code),
      };
    }),
  );
  // A NewPlant padded with whitespace past the limit: still valid JSON, but too large.
  const padded = plant.map(
    (b): Body =>
      b.kind === 'plant'
        ? { kind: 'plant', text: b.text + ' '.repeat(FUZZ_BODY_LIMIT), expected: error(413, 41301) }
        : b,
  );
  // Cut inside the object: never well-formed.
  const truncated = plant.chain((b) => {
    const text = b.kind === 'plant' ? b.text : '{}';
    const end = text.lastIndexOf('}');
    return fc
      .integer({ min: 1, max: Math.max(1, end) })
      .map((cut): Body => ({ kind: 'malformed', text: text.slice(0, cut) }));
  });
  const unknownText = fc.oneof(
    fc.json({ maxDepth: 3 }),
    fc.string({ maxLength: 40, unit: anyCodePoint }),
    fc.constantFrom('{', '}', '[', 'nul', 'tru', '{"id":}', "{'id':1}", '{"id":1,}', 'NaN', '0x1'),
  );
  // A NewPlant whose name holds bytes that are not UTF-8: a lone continuation byte, a cut
  // sequence, an overlong '/', an encoded surrogate, a code point past U+10FFFF.
  const notUtf8 = fc
    .constantFrom(
      [0xff],
      [0x80],
      [0xc3],
      [0xe2, 0x82],
      [0xc0, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
    )
    .map(
      (bad): Body => ({
        kind: 'unknown',
        bytes: Buffer.concat([
          Buffer.from('{"id": 7, "name": "a'),
          Buffer.from(bad),
          Buffer.from('b"}'),
        ]),
      }),
    );
  return fc.oneof(
    { weight: 24, arbitrary: plant },
    { weight: 1, arbitrary: notUtf8 },
    { weight: 3, arbitrary: truncated },
    {
      weight: 4,
      arbitrary: unknownText.map((t): Body => ({ kind: 'unknown', bytes: Buffer.from(t) })),
    },
    {
      weight: 1,
      arbitrary: fc
        .uint8Array({ maxLength: 64 })
        .map((bytes): Body => ({ kind: 'unknown', bytes })),
    },
    { weight: 1, arbitrary: fc.constant<Body>({ kind: 'none' }) },
    { weight: 1, arbitrary: fc.constant<Body>({ kind: 'empty', text: '' }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(' ', '\n\t\r ').map((text): Body => ({ kind: 'blank', text })),
    },
    { weight: 1, arbitrary: padded },
  );
}

type Route = { readonly method: string; readonly path: string; readonly expected?: Expected };

/** Where an operation is: what the model reads of the contract. */
export type Place = Pick<OperationCall, 'method' | 'path'>;

const CONTRACT_PLACES: readonly Place[] = Object.values(contract);

/** Whether a request path (its query ignored) is the path template's, as @koa/router matches it. */
function matches(template: string, path: string): boolean {
  const pattern = template
    .split(/(\{[^}]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${pattern}$`).test(path.split('?')[0] ?? '');
}

/**
 * The methods the contract has at a request path (its query ignored), upper case and sorted,
 * HEAD with GET as @koa/router answers it: what a 405's `Allow` lists; empty when no operation
 * is there (a 404).
 *
 * @example
 * methodsAt('/plants'); // ['POST']
 */
export function methodsAt(path: string, places: readonly Place[] = CONTRACT_PLACES): string[] {
  const methods = places
    .filter((place) => matches(place.path, path))
    .flatMap((place) => (place.method === 'get' ? ['GET', 'HEAD'] : [place.method.toUpperCase()]));
  return [...new Set(methods)].sort();
}

/** Methods a client may send to a path: those the contract has not there answer 405. */
const METHODS = ['GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/**
 * Paths no operation of the contract has, each answering 404 to any method: near misses of
 * `/plants` and probes. A unit test (requests.test.ts) checks that none matches an operation.
 */
export const UNKNOWN_PATHS = [
  '/plant',
  '/plants/1',
  '//plants',
  '/plants;x',
  '/plantsx',
  // `/` itself answers GET (a pointer to the docs), 405 for other methods.
  '/index.html',
  '/plants/..%2f',
  '/%2e%2e/plants',
  '/metrics',
  '/admin',
  '/plants/%00',
] as const;

/**
 * Each of `unknown` that an operation of `places` has, as a message naming this file and what
 * to do; empty when none does.
 */
export function knownUnknownPaths(
  places: readonly Place[] = CONTRACT_PLACES,
  unknown: readonly string[] = UNKNOWN_PATHS,
): string[] {
  return unknown.flatMap((path) =>
    places
      .filter((place) => matches(place.path, path))
      .map(
        (place) =>
          `apps/server/test/security/requests.ts: the unknown path ${path} is ${place.method.toUpperCase()} ${place.path} of the contract: replace it in UNKNOWN_PATHS with a path no operation has`,
      ),
  );
}

/**
 * Mostly POST /plants; sometimes a method the contract has not at /plants (405), or a path
 * that no operation has (404).
 */
function route(): fc.Arbitrary<Route> {
  const create = fc.constantFrom<Route>(
    { method: 'POST', path: '/plants' },
    { method: 'POST', path: '/plants?id=1&name=x' },
  );
  const otherMethod = fc
    .constantFrom(...METHODS.filter((method) => !methodsAt('/plants').includes(method)))
    .map((method): Route => ({ method, path: '/plants', expected: error(405, 40501) }));
  const unknownPath = fc
    .tuple(fc.constantFrom('POST', 'GET', 'PUT'), fc.constantFrom(...UNKNOWN_PATHS))
    .map(([method, path]): Route => ({ method, path, expected: error(404, 40401) }));
  return fc.oneof(
    { weight: 30, arbitrary: create },
    { weight: 2, arbitrary: otherMethod },
    { weight: 2, arbitrary: unknownPath },
  );
}

/** Headers the server must shrug off: odd request ids, accept values. */
function extraHeaders(): fc.Arbitrary<Record<string, string>> {
  return fc.record(
    {
      'x-request-id': fc.oneof(
        fc.stringMatching(/^[A-Za-z0-9._:-]{1,128}$/),
        fc.constantFrom('', 'a'.repeat(129), 'id with spaces', '<script>', '../../etc', 'ü'),
      ),
      accept: fc.constantFrom('text/html', 'application/xml', '*/*', 'application/json'),
      'accept-charset': fc.constantFrom('iso-8859-1', 'utf-16'),
    },
    { requiredKeys: [] },
  );
}

function encode(raw: Uint8Array, coding: Encoding): { bytes: Uint8Array; header?: string } {
  switch (coding) {
    case 'none':
      return { bytes: raw };
    case 'identity':
      return { bytes: raw, header: 'identity' };
    case 'gzip':
      return { bytes: gzipSync(raw), header: 'gzip' };
    case 'deflate':
      return { bytes: deflateSync(raw), header: 'deflate' };
    case 'br':
      return { bytes: brotliCompressSync(raw), header: 'br' };
    case 'corrupt':
      // Says gzip, is not (or is cut short).
      return { bytes: Buffer.concat([raw, Buffer.from('not gzip')]), header: 'gzip' };
    case 'unsupported':
      return { bytes: gzipSync(gzipSync(raw)), header: 'gzip, gzip' };
  }
}

/**
 * Generated create-plant requests (and some to other methods and paths) with the answer
 * each deserves, in the server's order of checks: route (404/405) → credential (401) → no
 * body (400 40003) → content type (415) → content coding (415 unknown, 400 40002 corrupt) →
 * size after decoding (413) → blank body (40003) → JSON (40002) → NewPlant (40001) → store.
 *
 * @example
 * fc.sample(fuzzCases('token-of-the-test-server-123'), 1)[0].request.method; // 'POST'
 */
export function fuzzCases(token: string): fc.Arbitrary<FuzzCase> {
  return fc
    .record({
      route: route(),
      auth: auth(),
      contentType: contentType(),
      encoding: encoding(),
      chunked: fc.oneof(
        { weight: 4, arbitrary: fc.constant(false) },
        { weight: 1, arbitrary: fc.constant(true) },
      ),
      body: body(),
      extra: extraHeaders(),
    })
    .map(({ route, auth, contentType, encoding: coding, chunked, body, extra }): FuzzCase => {
      const headers: Record<string, string> = { ...extra };
      if (auth.header) headers.authorization = auth.header(token);
      if (contentType.value !== undefined) headers['content-type'] = contentType.value;
      let bytes: Uint8Array | undefined;
      let decoded: Uint8Array | undefined;
      if (body.kind !== 'none') {
        decoded = body.kind === 'unknown' ? body.bytes : Buffer.from(body.text, 'utf8');
        const encoded = encode(decoded, coding);
        bytes = encoded.bytes;
        if (encoded.header) headers['content-encoding'] = encoded.header;
      }
      const request: RawRequest = {
        method: route.method,
        path: route.path,
        headers,
        ...(bytes === undefined ? {} : { body: bytes, chunked }),
      };
      const expected = expectedAnswer(route, auth, contentType.json, coding, chunked, body, bytes);
      return { request, expected, ...(decoded === undefined ? {} : { decoded }) };
    });
}

function expectedAnswer(
  route: Route,
  auth: Auth,
  json: boolean,
  coding: Encoding,
  chunked: boolean,
  body: Body,
  bytes: Uint8Array | undefined,
): Expected {
  if (route.expected) return route.expected;
  if (!auth.valid) return error(401, 40101);
  // No body: no framing at all, or Content-Length: 0 (a chunked empty body is read first).
  if (bytes === undefined || (bytes.byteLength === 0 && !chunked)) return error(400, 40003);
  if (!json) return error(415, 41501);
  if (coding === 'unsupported' || coding === 'br') return error(415, 41501);
  if (coding === 'corrupt') return error(400, 40002);
  const decoded =
    body.kind === 'unknown'
      ? body.bytes.byteLength
      : body.kind === 'none'
        ? 0
        : Buffer.byteLength(body.text);
  if (decoded > FUZZ_BODY_LIMIT) return error(413, 41301);
  switch (body.kind) {
    case 'none':
    case 'empty':
    case 'blank':
      return error(400, 40003);
    case 'malformed':
      return error(400, 40002);
    case 'plant':
      return body.expected;
    case 'unknown':
      // JSON is UTF-8: other bytes are refused, never replaced with U+FFFD.
      return isUtf8(body.bytes) ? { kind: 'body' } : error(400, 40002);
  }
}
