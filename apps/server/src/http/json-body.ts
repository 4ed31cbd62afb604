import { formatIssues, JsonTooDeepError, MalformedJsonError, parseJson } from '@plant-store/schema';
import bodyParser from 'koa-bodyparser';
import type * as z from 'zod/mini';
import { ApiError } from './api-error.ts';
import type { AppContext, RequestStep } from './app-state.ts';
import { UNSUPPORTED_CODING_MESSAGE } from './to-api-error.ts';

const JSON_TYPES = ['application/json', 'application/*+json'];

/**
 * `Content-Type` values that are certainly JSON, compared as received: what clients send
 * almost always. Anything else takes the full media-type check (`ctx.request.is`), so this
 * only saves work and never changes an answer.
 */
const PLAIN_JSON_TYPES = new Set([
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=UTF-8',
  'application/json;charset=utf-8',
  'application/json;charset=UTF-8',
]);

/**
 * The step that reads, parses and validates a required JSON request body against `schema`,
 * leaving the result in `ctx.state.body`:
 * - no body or an empty one → 400 `missingBody`; a non-JSON content type → 415;
 * - over `limitBytes` (counted after any gzip/deflate decoding) → 413; `br` → 415;
 * - koa-bodyparser reads the raw bytes once; they are decoded strictly and parsed once,
 *   losslessly, so an int64 id is never rounded; malformed JSON → 400 `malformedJson`; JSON
 *   nested deeper than `MAX_JSON_DEPTH` → 400 `jsonTooDeep`, before the parser recurses; schema
 *   failures → 400 `validationFailed`, listing every problem with its field path.
 *
 * The headers are read straight from the request: a create is the hot path, and every
 * media-type parse is paid on each request.
 *
 * @example
 * const readBody = jsonBody(NewPlant, 65536);
 * await readBody(ctx); // ctx.state.body is a NewPlant, or an ApiError was thrown
 */
export function jsonBody(schema: z.ZodMiniType, limitBytes: number): RequestStep {
  const readBytes = bodyParser({
    enableTypes: ['text'],
    extendTypes: { text: JSON_TYPES },
    // A number: raw-body runs bytes.parse on the limit for every request, which for a string
    // means parsing it again each time. (The type says string; raw-body takes both.)
    textLimit: limitBytes as unknown as string,
    // No encoding: the raw bytes, decoded below strictly (raw-body would replace bytes that are
    // not UTF-8 with U+FFFD and store a name the client never sent). The type says string.
    encoding: null as unknown as string,
  }) as unknown as (ctx: AppContext, next: () => Promise<void>) => Promise<void>;

  // Not async: every check before the read throws at once; the read is the one promise.
  return function readJsonBody(ctx) {
    const headers = ctx.req.headers;
    // No body at all (no Transfer-Encoding, Content-Length absent or 0) is a missing body,
    // whatever the content type says (`ctx.request.length` semantics: '' and 0 are no body).
    if (!headers['transfer-encoding'] && !~~(headers['content-length'] ?? '')) {
      throw missingBody();
    }
    const type = headers['content-type'];
    if (!(type !== undefined && PLAIN_JSON_TYPES.has(type)) && !ctx.request.is(JSON_TYPES)) {
      const given = ctx.request.type || 'no content type';
      throw new ApiError(
        'unsupportedMediaType',
        `Request body must be application/json, not ${given}`,
      );
    }
    // Brotli is refused: its decoder takes a window of up to 16 MB for a body of a few dozen
    // bytes (a 27-byte body cost 16 MB; 32 at once, 380 MB). gzip and deflate need 32 KiB.
    const coding = headers['content-encoding'];
    if (coding !== undefined) {
      // Content codings are case-insensitive (RFC 9110 §8.4.1); the decoder compares exactly.
      const lower = coding.trim().toLowerCase();
      if (lower === 'br') throw unsupportedCoding();
      if (lower !== coding) headers['content-encoding'] = lower;
    }
    return readBytes(ctx, NOTHING_NEXT).then(() => {
      ctx.state.body = validate(schema, ctx.request.body);
    });
  };
}

/** koa-bodyparser is called as a function here: nothing runs after it. */
const NOTHING_NEXT = () => Promise.resolve();

/** The body's bytes, decoded strictly as UTF-8, parsed losslessly and validated. */
function validate(schema: z.ZodMiniType, bytes: unknown): unknown {
  if (!(bytes instanceof Uint8Array)) throw missingBody();
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new ApiError('malformedJson', 'Request body is not valid UTF-8');
  }
  let value = parseCanonicalNewPlant(text);
  if (value === undefined) value = parseLosslessly(text);
  const result = schema.safeParse(value);
  if (!result.success) throw new ApiError('validationFailed', formatIssues(result.error.issues));
  return result.data;
}

/**
 * `{"id":<integer>,"name":"<text>"}` or `{"id":<integer>,"name":"<text>","tag":"<text>"}`,
 * written compactly in this order, strings without escapes or control characters: what
 * clients send. Nothing else matches (whitespace, another order, escapes, other keys, a
 * fraction or exponent, more than 19 digits), and that text takes the lossless parser. The
 * string characters are those JSON allows unescaped: U+0020 and up, except `"` and `\`.
 */
const CANONICAL_NEW_PLANT =
  /^\{"id":(-?(?:0|[1-9][0-9]{0,18})),"name":"([\x20\x21\x23-\x5b\x5d-\uffff]*)"(?:,"tag":"([\x20\x21\x23-\x5b\x5d-\uffff]*)")?\}$/;

/** Digits that a double holds exactly (below 2^53 ≈ 9.007e15). */
const EXACT_DIGITS = 15;
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The value `parseJson` gives for a canonical NewPlant text (see CANONICAL_NEW_PLANT), built
 * without the general parser: a safe integer id as a number, a larger one as a bigint, the
 * strings as written (no escapes to decode). `undefined` for any other text. The schema then
 * validates it exactly as it would the general parser's value.
 */
export function parseCanonicalNewPlant(text: string): unknown {
  const match = CANONICAL_NEW_PLANT.exec(text);
  if (match === null) return undefined;
  const [, idText = '', name, tag] = match;
  const digits = idText.charCodeAt(0) === 0x2d ? idText.length - 1 : idText.length;
  let id: number | bigint;
  if (digits <= EXACT_DIGITS) {
    id = Number(idText);
    if (id === 0) id = 0; // -0 is 0, as the lossless parser reads it
  } else {
    const big = BigInt(idText);
    id = big >= MIN_SAFE && big <= MAX_SAFE ? Number(big) : big;
  }
  return tag === undefined ? { id, name } : { id, name, tag };
}

/** The lossless parser, its failures as the API's 400s. */
function parseLosslessly(text: string): unknown {
  if (text.trim() === '') throw missingBody();
  try {
    return parseJson(text);
  } catch (error) {
    if (error instanceof MalformedJsonError) {
      throw new ApiError('malformedJson', `Request body ${error.message}`);
    }
    if (error instanceof JsonTooDeepError) {
      throw new ApiError('jsonTooDeep', `Request body ${error.message}`);
    }
    throw error;
  }
}

/** The 415 for a content coding other than gzip and deflate (the same as `toApiError`'s). */
function unsupportedCoding(): ApiError {
  return new ApiError('unsupportedMediaType', UNSUPPORTED_CODING_MESSAGE);
}

/** JSON is UTF-8 (RFC 8259 §8.1): bytes that are not are refused, never replaced. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

function missingBody(): ApiError {
  return new ApiError(
    'missingBody',
    'Request body is required: send a NewPlant as application/json',
  );
}
