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
import type { AppContext } from './app-state.ts';

const JSON_TYPES = ['application/json', 'application/*+json'];
/** The smallest average piece a body may arrive in, past its first 8 pieces. */
const MIN_PIECE_BYTES = 512;
/** JSON is UTF-8 (RFC 8259 §8.1): other bytes are refused, never replaced; a BOM is dropped. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });
const UTF8_NAMES = new Set(['utf-8', 'utf8']);

interface JsonBody {
  /** Refuses, before anything is read, what the headers already rule out (400, 415, 413). */
  readonly checkHeaders: (ctx: AppContext) => void;
  /** Reads the text into `ctx.request.rawBody`, or throws the refusal. */
  readonly read: (ctx: AppContext) => Promise<void>;
  readonly validate: (ctx: AppContext) => unknown;
}

/**
 * A required JSON body (docs/api.md lists the answers): headers checked before a byte is read,
 * text read within `limitBytes` in few enough pieces, decoded strictly as UTF-8, parsed
 * losslessly as a flat record (`NEW_PLANT_JSON_LIMITS`), then validated against `schema`.
 *
 * @example
 * const body = jsonBody(NewPlant, 65536);
 */
export function jsonBody(schema: z.ZodMiniType, limitBytes: number): JsonBody {
  const parse = bodyParser({
    enableTypes: ['text'],
    extendTypes: { text: JSON_TYPES },
    textLimit: String(limitBytes),
    // One character per byte (decoded strictly below: utf-8 here would turn bad bytes into
    // U+FFFD); 'binary' is Node's own latin1, iconv-lite's decodes byte by byte in JavaScript.
    encoding: 'binary',
  });
  // Each piece of a body costs a read and callbacks: past 8, pieces of under 512 bytes on
  // average are refused (a client's TCP segments carry 500 bytes to 64 KiB).
  const read = async (ctx: AppContext): Promise<void> => {
    let pieces = 0;
    let bytes = 0;
    let refuse: (error: ApiError) => void = () => undefined;
    const tooMany = new Promise<never>((_, reject) => {
      refuse = reject;
    });
    const count = (chunk: Buffer) => {
      pieces += 1;
      bytes += chunk.length;
      if (pieces <= 8 + bytes / MIN_PIECE_BYTES) return;
      ctx.req.off('data', count);
      ctx.req.unpipe();
      ctx.req.pause();
      refuse(
        new ApiError(
          'malformedRequest',
          ERROR_MESSAGES.malformedRequest.tooManyPieces(MIN_PIECE_BYTES),
        ),
      );
    };
    ctx.req.on('data', count);
    try {
      await Promise.race([parse(ctx, async () => undefined), tooMany]);
    } finally {
      ctx.req.off('data', count);
    }
  };
  const checkHeaders = (ctx: AppContext): void => {
    const headers = ctx.req.headers;
    const declaredLength = Number(headers['content-length'] ?? 0);
    if (headers['transfer-encoding'] === undefined && declaredLength === 0) throw missingBody();
    // type-is, with the types koa-bodyparser reads: what passes here is what it reads.
    const contentType = headers['content-type'] ?? '';
    // content-type 2 never throws: no declared charset slips past a stray `;`.
    const parsed = contentType === JSON_TYPES[0] ? undefined : parseContentType(contentType);
    if (parsed && !typeIs.is(contentType, JSON_TYPES)) {
      throw new ApiError(
        'unsupportedMediaType',
        ERROR_MESSAGES.unsupportedMediaType.notJson(parsed.type || 'no content type'),
      );
    }
    const charset = parsed?.parameters.charset;
    // Content codings are case-insensitive (RFC 9110 §8.4.1); the decoder compares exactly.
    const coding = headers['content-encoding']?.trim().toLowerCase();
    if (coding !== undefined) headers['content-encoding'] = coding;
    // Brotli's decoder takes up to 16 MB for a body of a few bytes; gzip and deflate 32 KiB.
    if ((charset !== undefined && !UTF8_NAMES.has(charset.toLowerCase())) || coding === 'br') {
      throw new ApiError('unsupportedMediaType', ERROR_MESSAGES.unsupportedMediaType.coding);
    }
    // Before a byte is read: co-body's `~~length` misreads 2^31 and more.
    if (declaredLength > limitBytes && (coding === undefined || coding === 'identity')) {
      throw new ApiError('payloadTooLarge', ERROR_MESSAGES.payloadTooLarge(limitBytes));
    }
  };
  const validate = (ctx: AppContext): unknown => validated(schema, ctx.request.rawBody ?? '');
  return { checkHeaders, read, validate };
}

function validated(schema: z.ZodMiniType, latin1: string): unknown {
  let text = latin1;
  // Only a body with a byte above 0x7F (two bytes in UTF-8) is decoded; ASCII is its own text.
  if (Buffer.byteLength(latin1) !== latin1.length) {
    try {
      text = UTF8.decode(Buffer.from(latin1, 'latin1'));
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
