import { isAscii } from 'node:buffer';
import {
  ERROR_MESSAGES,
  formatIssues,
  JsonTooDeepError,
  JsonTooWideError,
  MalformedJsonError,
  NEW_PLANT_JSON_LIMITS,
  parseJson,
} from '@plant-store/schema';
import { parse as parseContentType } from 'content-type';
import bodyParser from 'koa-bodyparser';
import typeIs from 'type-is';
import type * as z from 'zod/mini';
import { ApiError } from './api-error.ts';
import type { AppContext, AppMiddleware } from './app-state.ts';

const JSON_TYPES = ['application/json', 'application/*+json'];
/**
 * JSON is UTF-8 (RFC 8259 §8.1): bytes that are not are refused, never replaced; a leading BOM
 * is dropped.
 */
const UTF8 = new TextDecoder('utf-8', { fatal: true });
/** The charset names of UTF-8 a JSON body may declare (any case). */
const UTF8_NAMES = new Set(['utf-8', 'utf8']);

/** The three parts of reading a required JSON body, in the order a route runs them. */
export interface JsonBody {
  /** Refuses, before anything is read, what the headers already rule out (400, 415, 413). */
  readonly checkHeaders: (ctx: AppContext) => void;
  /** koa-bodyparser: reads the raw text, within the limit. */
  readonly readText: AppMiddleware;
  /** The text decoded, parsed and validated: the body the handler gets. */
  readonly validate: (ctx: AppContext) => unknown;
}

/**
 * Reading, parsing and validating a required JSON request body against `schema`:
 * - no body or an empty one → 400 `missingBody`; a non-JSON content type → 415; `br` → 415;
 * - a declared `Content-Length` over `limitBytes` → 413 before anything is read; a longer
 *   body (counted after any gzip/deflate decoding) → 413 once the limit is passed;
 * - koa-bodyparser reads the raw text; its bytes are decoded strictly as UTF-8 and parsed
 *   losslessly, so an int64 id is never rounded; malformed JSON → 400 `malformedJson`; JSON
 *   nested deeper than `MAX_JSON_DEPTH` → 400 `jsonTooDeep`, before the parser recurses; schema
 *   failures → 400 `validationFailed`, listing the first problems with their field paths;
 * - the body is read as the flat record every body of the contract is (a NewPlant:
 *   `NEW_PLANT_JSON_LIMITS`): what no NewPlant can hold (the content of arrays and nested objects,
 *   strings past a few KB) is not parsed, and more than 16 members are refused unparsed, so a bad
 *   body costs one pass over its text whatever its shape.
 *
 * @example
 * const body = jsonBody(NewPlant, 65536);
 * router.post('/plants', async (ctx, next) => { body.checkHeaders(ctx); await next(); }, body.readText,
 *   async (ctx) => { ctx.body = await create(body.validate(ctx)); });
 */
export function jsonBody(schema: z.ZodMiniType, limitBytes: number): JsonBody {
  const parse = bodyParser({
    enableTypes: ['text'],
    extendTypes: { text: JSON_TYPES },
    textLimit: String(limitBytes),
    // One character per byte, so the text gives back the bytes exactly, to be decoded strictly
    // below (as utf-8, bytes that are not would become U+FFFD: a name the client never sent).
    // 'binary' is latin1 decoded by Node itself; iconv-lite's 'latin1' decodes it byte by byte
    // in JavaScript, 170 µs of CPU for a 64 KB body (a whole create costs ~130).
    encoding: 'binary',
  });
  // Each piece of a body costs a read and callbacks (~7 µs with the kernel's share): 60 KB in
  // 1-byte chunks cost 110 creates. A body in more pieces than one per 256 bytes on average is
  // refused; a client's TCP segments carry 500 bytes to 64 KiB.
  const maxPieces = Math.max(64, Math.ceil(limitBytes / 256));
  const readText: AppMiddleware = async (ctx, next) => {
    let pieces = 0;
    let refuse: (error: ApiError) => void = () => undefined;
    const tooMany = new Promise<never>((_, reject) => {
      refuse = reject;
    });
    const count = () => {
      pieces += 1;
      if (pieces <= maxPieces) return;
      ctx.req.off('data', count);
      ctx.req.unpipe();
      ctx.req.pause();
      refuse(
        new ApiError('malformedRequest', ERROR_MESSAGES.malformedRequest.tooManyPieces(maxPieces)),
      );
    };
    ctx.req.on('data', count);
    try {
      await Promise.race([parse(ctx, async () => undefined), tooMany]);
    } finally {
      ctx.req.off('data', count);
    }
    await next();
  };
  const checkHeaders = (ctx: AppContext): void => {
    const headers = ctx.req.headers;
    const declaredLength = Number(headers['content-length'] ?? 0);
    if (headers['transfer-encoding'] === undefined && declaredLength === 0) throw missingBody();
    // type-is, with the types koa-bodyparser reads: what passes here is what it reads.
    const contentType = headers['content-type'] ?? '';
    if (!typeIs.is(contentType, JSON_TYPES)) {
      const given = parseContentType(contentType, { parameters: false }).type || 'no content type';
      throw new ApiError(
        'unsupportedMediaType',
        ERROR_MESSAGES.unsupportedMediaType.notJson(given),
      );
    }
    // JSON is UTF-8 (RFC 8259 §8.1): a body declared in another charset is refused, not misread.
    // content-type 2 (the parser type-is uses) never throws: it reads every parameter whatever
    // stray `;` or parameter without `=` comes with it, so no declared charset slips past.
    const { charset } = parseContentType(contentType).parameters;
    if (charset !== undefined && !UTF8_NAMES.has(charset.toLowerCase())) {
      throw new ApiError('unsupportedMediaType', ERROR_MESSAGES.unsupportedMediaType.coding);
    }
    // Content codings are case-insensitive (RFC 9110 §8.4.1); the decoder compares exactly.
    const coding = headers['content-encoding']?.trim().toLowerCase();
    if (coding !== undefined) headers['content-encoding'] = coding;
    // Brotli is refused: its decoder takes a window of up to 16 MB for a body of a few dozen
    // bytes (a 27-byte body cost 16 MB; 32 at once, 380 MB). gzip and deflate need 32 KiB.
    if (coding === 'br') {
      throw new ApiError('unsupportedMediaType', ERROR_MESSAGES.unsupportedMediaType.coding);
    }
    // Refused at once, before a byte is read: co-body hands raw-body the length as `~~length`,
    // which misreads 2^31 and more (as 0 or a negative number).
    if (declaredLength > limitBytes && (coding === undefined || coding === 'identity')) {
      throw new ApiError('payloadTooLarge', ERROR_MESSAGES.payloadTooLarge(limitBytes));
    }
  };
  const validate = (ctx: AppContext): unknown => validated(schema, ctx.request.rawBody);
  return { checkHeaders, readText, validate };
}

/** The body's bytes (as latin1 text), decoded strictly as UTF-8, parsed and validated. */
function validated(schema: z.ZodMiniType, raw: string | undefined): unknown {
  let text = raw ?? '';
  // Node's isAscii scans 64 KB in microseconds (a regular expression for a byte above 0x7F
  // took ~60 µs); only a body with such bytes is decoded.
  const bytes = Buffer.from(text, 'latin1');
  if (!isAscii(bytes)) {
    try {
      text = UTF8.decode(bytes);
    } catch {
      throw new ApiError('malformedJson', ERROR_MESSAGES.malformedJson.notUtf8);
    }
  }
  if (text.trim() === '') throw missingBody();
  let value: unknown;
  try {
    value = parseJson(text, { flatRecord: NEW_PLANT_JSON_LIMITS });
  } catch (error) {
    if (error instanceof JsonTooWideError) {
      throw new ApiError(
        'validationFailed',
        ERROR_MESSAGES.validationFailed.tooManyProperties(error, NEW_PLANT_JSON_LIMITS.maxMembers),
      );
    }
    if (error instanceof MalformedJsonError) {
      throw new ApiError('malformedJson', ERROR_MESSAGES.malformedJson.notJson(error));
    }
    if (error instanceof JsonTooDeepError) {
      throw new ApiError('jsonTooDeep', ERROR_MESSAGES.jsonTooDeep(error));
    }
    throw error;
  }
  const result = schema.safeParse(value);
  if (!result.success) throw new ApiError('validationFailed', formatIssues(result.error.issues));
  return result.data;
}

function missingBody(): ApiError {
  return new ApiError('missingBody', ERROR_MESSAGES.missingBody);
}
