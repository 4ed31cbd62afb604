import { unzipSync } from 'node:zlib';
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
import type * as z from 'zod/mini';
import { ApiError } from './api-error.ts';
import type { AppContext } from './app-state.ts';

const JSON_TYPES = ['application/json', 'application/*+json'];
/** The types type-is matches to JSON_TYPES (its media-typer test included), on content-type's `type`. */
const JSON_TYPE = /^application\/(?:json|[a-z0-9][a-z0-9!#$&^_.+-]{0,121}\+json)$/;
/** JSON is UTF-8 (RFC 8259 §8.1): other bytes are refused, never replaced; a BOM is dropped. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });
/** The codings read (`unzipSync` tells gzip from deflate's zlib format by the header). */
const CODINGS = new Set(['identity', 'gzip', 'deflate']);

/**
 * A required JSON body (docs/api.md lists the answers): headers checked before a byte is read,
 * at most `limitBytes` read off the wire and at most `limitBytes` once decoded, decoded strictly
 * as UTF-8, parsed losslessly as a flat record (`NEW_PLANT_JSON_LIMITS`), validated against
 * `schema`.
 */
export function jsonBody(
  schema: z.ZodMiniType,
  limitBytes: number,
): (ctx: AppContext) => Promise<unknown> {
  const parse = bodyParser({
    enableTypes: ['text'],
    extendTypes: { text: JSON_TYPES },
    textLimit: String(limitBytes),
    // One character per byte (decoded strictly below: utf-8 here would turn bad bytes into
    // U+FFFD); 'binary' is Node's own latin1, iconv-lite's decodes byte by byte in JavaScript.
    encoding: 'binary',
  });
  const tooLarge = () =>
    new ApiError('payloadTooLarge', ERROR_MESSAGES.payloadTooLarge(limitBytes));
  return async function readJsonBody(ctx) {
    const headers = ctx.req.headers;
    const declaredLength = Number(headers['content-length'] ?? 0);
    if (headers['transfer-encoding'] === undefined && declaredLength === 0) throw missingBody();
    // The types koa-bodyparser reads: what passes here is what it reads. content-type 2 never
    // throws: no declared charset slips past a stray `;`.
    const { type, parameters } = parseContentType(headers['content-type'] ?? '');
    if (!JSON_TYPE.test(type)) {
      throw new ApiError(
        'unsupportedMediaType',
        ERROR_MESSAGES.unsupportedMediaType.notJson(type || 'no content type'),
      );
    }
    // Content codings are case-insensitive (RFC 9110 §8.4.1). Brotli's decoder takes up to
    // 16 MB for a body of a few bytes: refused, as is any coding but gzip and deflate.
    const coding = headers['content-encoding']?.trim().toLowerCase() ?? 'identity';
    if (!/^utf-?8$/i.test(parameters.charset ?? 'utf-8') || !CODINGS.has(coding)) {
      throw new ApiError('unsupportedMediaType', ERROR_MESSAGES.unsupportedMediaType.coding);
    }
    // Before a byte is read, encoded or not: co-body's `~~length` misreads 2^31 and more.
    if (declaredLength > limitBytes) throw tooLarge();
    // koa-bodyparser reads the bytes as sent (co-body would bound only what it inflates); Node's
    // zlib then decodes them, each to at most `limitBytes`.
    delete headers['content-encoding'];
    await parse(ctx, async () => undefined);
    const sent = ctx.request.rawBody ?? '';
    if (coding === 'identity') return validated(schema, sent);
    try {
      const decoded = unzipSync(Buffer.from(sent, 'latin1'), { maxOutputLength: limitBytes });
      return validated(schema, decoded.toString('latin1'));
    } catch (error) {
      // zlib's own errors (`Z_DATA_ERROR`…) are a 400 (to-api-error.ts).
      if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
      throw error;
    }
  };
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
    if (error instanceof MalformedJsonError)
      throw new ApiError('malformedJson', ERROR_MESSAGES.malformedJson.notJson(error));
    if (error instanceof JsonTooDeepError)
      throw new ApiError('jsonTooDeep', ERROR_MESSAGES.jsonTooDeep(error));
    throw error;
  }
  const result = schema.safeParse(value);
  if (!result.success) throw new ApiError('validationFailed', formatIssues(result.error.issues));
  return result.data;
}

function missingBody(): ApiError {
  return new ApiError('missingBody', ERROR_MESSAGES.missingBody);
}
