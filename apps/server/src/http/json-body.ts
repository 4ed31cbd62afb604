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
import getRawBody from 'raw-body';
import type * as z from 'zod/mini';
import { ApiError } from '../api-error.ts';
import type { AppContext } from './app-state.ts';

/** `application/json` and `application/*+json`, as type-is matches them, on content-type's `type`. */
const JSON_TYPE = /^application\/(?:json|[a-z0-9][a-z0-9!#$&^_.+-]{0,121}\+json)$/;
/** JSON is UTF-8 (RFC 8259 §8.1): other bytes are refused, never replaced; a BOM is dropped. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });
/** The codings read (`unzipSync` tells gzip from deflate's zlib format by its header). */
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
  const tooLarge = () =>
    new ApiError('payloadTooLarge', ERROR_MESSAGES.payloadTooLarge(limitBytes));
  return async function readJsonBody(ctx) {
    const headers = ctx.req.headers;
    const declaredLength = Number(headers['content-length'] ?? 0);
    if (headers['transfer-encoding'] === undefined && declaredLength === 0) throw missingBody();
    // content-type 2 never throws: no declared charset slips past a stray `;`.
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
    if (declaredLength > limitBytes) throw tooLarge();
    // At most `limitBytes` as sent (raw-body's errors: to-api-error.ts), then at most
    // `limitBytes` once decoded.
    const length = headers['content-length'] ?? null;
    const sent = await getRawBody(ctx.req, { limit: limitBytes, length });
    if (coding === 'identity') return validated(schema, sent);
    try {
      return validated(schema, unzipSync(sent, { maxOutputLength: limitBytes }));
    } catch (error) {
      // zlib's own errors (`Z_DATA_ERROR`…) are a 400 (to-api-error.ts).
      if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge();
      throw error;
    }
  };
}

function validated(schema: z.ZodMiniType, body: Buffer): unknown {
  let text: string;
  try {
    text = UTF8.decode(body);
  } catch {
    throw new ApiError('malformedJson', ERROR_MESSAGES.malformedJson.notUtf8);
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
