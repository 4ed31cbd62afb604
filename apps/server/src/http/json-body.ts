import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import {
  ERROR_MESSAGES,
  JsonTooDeepError,
  JsonTooWideError,
  MalformedJsonError,
  NEW_PLANT_JSON_LIMITS,
  parseJson,
} from '@plant-store/schema';
import { parse as parseContentType } from 'content-type';
import bodyParser from 'koa-bodyparser';
import { ApiError } from '../api-error.ts';
import type { AppContext } from './app-state.ts';

const JSON_TYPES = ['application/json', 'application/*+json'];
/** `application/json` and `application/*+json`, as type-is matches them, on content-type's `type`. */
const JSON_TYPE = /^application\/(?:json|[a-z0-9][a-z0-9!#$&^_.+-]{0,121}\+json)$/;
/** JSON is UTF-8 (RFC 8259 §8.1): other bytes are refused (`isUtf8`), never replaced; a BOM is dropped. */
const UTF8 = new TextDecoder();
/**
 * The codings read, named as co-body's inflation matches them (exactly). Brotli, which it would
 * also decode, takes up to 16 MB for a body of a few bytes: refused, as is any other coding.
 */
const CODINGS = new Set(['identity', 'gzip', 'deflate']);
const NOT_READ = ERROR_MESSAGES.unsupportedMediaType;
/** koa-bodyparser is middleware: what it would call next is nothing here. */
const NOTHING_NEXT = async () => undefined;

/**
 * A required JSON body (docs/api.md lists the answers): headers checked before a byte is read,
 * read by koa-bodyparser as text of at most `limitBytes` once decoded, decoded strictly as
 * UTF-8, parsed losslessly as a flat record (`NEW_PLANT_JSON_LIMITS`); the caller validates it.
 */
export function jsonBody(limitBytes: number): (ctx: AppContext) => Promise<unknown> {
  const readText = bodyParser({
    enableTypes: ['text'],
    extendTypes: { text: JSON_TYPES },
    // co-body's limit counts the bytes after gzip/deflate: a bomb stops at `limitBytes`.
    textLimit: String(limitBytes),
    // One character per byte, so bad UTF-8 is refused below, not replaced by U+FFFD. `binary`
    // is one of iconv-lite's Node-native encodings; its `latin1` is a table read byte by byte
    // in JavaScript (the price: bench/results/probe.md).
    encoding: 'binary',
    onerror: (error) => {
      throw readFailure(error, limitBytes);
    },
  });
  return async function readJsonBody(ctx) {
    const headers = ctx.req.headers;
    const declaredLength = Number(headers['content-length'] ?? 0);
    if (headers['transfer-encoding'] === undefined && declaredLength === 0) throw missingBody();
    // content-type 2 never throws: no declared charset slips past a stray `;`.
    const { type, parameters } = parseContentType(headers['content-type'] ?? '');
    if (!JSON_TYPE.test(type)) throw unsupported(NOT_READ.notJson(type || 'no content type'));
    const coding = headers['content-encoding'] || 'identity';
    if (!/^utf-?8$/i.test(parameters.charset ?? 'utf-8') || !CODINGS.has(coding)) {
      throw unsupported(NOT_READ.coding);
    }
    // Before a byte is read, encoded or not.
    if (declaredLength > limitBytes) throw tooLarge(limitBytes);
    const reading = readText(ctx, NOTHING_NEXT);
    // An encoded body is also counted as sent (`sentWithin`); behind the shipped proxy its
    // client_max_body_size bounds it first.
    await (coding === 'identity'
      ? reading
      : Promise.race([reading, sentWithin(ctx.req, limitBytes)]));
    return parsed(ctx.request.rawBody ?? '');
  };
}

/**
 * Rejects with a 413 once more than `limitBytes` of the body arrive as sent (co-body counts them
 * decoded: a chunked gzip body of empty blocks would be read until requestTimeout); the 413 then
 * closes the connection. Another reader of the request beside co-body's pipe (Node: one stream
 * may feed several).
 */
function sentWithin(req: IncomingMessage, limitBytes: number): Promise<never> {
  return new Promise((_, reject) => {
    let sent = 0;
    req.on('data', function count(chunk: Buffer) {
      sent += chunk.length;
      if (sent <= limitBytes) return;
      req.off('data', count);
      reject(tooLarge(limitBytes));
    });
  });
}

/** What reading the body threw (raw-body's error `type`s, zlib's `code`s), in the Error shape. */
function readFailure(error: unknown, limitBytes: number): unknown {
  const { type, code } = error as { type?: unknown; code?: unknown };
  if (type === 'entity.too.large') return tooLarge(limitBytes);
  // zlib's `Z_DATA_ERROR`, `Z_BUF_ERROR`: a body not what its Content-Encoding says.
  if (typeof code === 'string' && code.startsWith('Z_')) {
    return new ApiError('malformedJson', ERROR_MESSAGES.malformedJson.undecodable);
  }
  if (type === 'request.aborted' || type === 'request.size.invalid') {
    return new ApiError('malformedJson', ERROR_MESSAGES.malformedJson.cutShort);
  }
  return error;
}

/** `bytes`: the body read one character per byte; only one with a byte above 0x7F is decoded. */
function parsed(bytes: string): unknown {
  let text = bytes;
  if (Buffer.byteLength(bytes) !== bytes.length) {
    const body = Buffer.from(bytes, 'latin1');
    if (!isUtf8(body)) throw new ApiError('malformedJson', ERROR_MESSAGES.malformedJson.notUtf8);
    text = UTF8.decode(body);
  }
  if (text.trim() === '') throw missingBody();
  try {
    return parseJson(text, { flatRecord: NEW_PLANT_JSON_LIMITS });
  } catch (error) {
    if (error instanceof JsonTooWideError) {
      const { maxMembers } = NEW_PLANT_JSON_LIMITS;
      const message = ERROR_MESSAGES.validationFailed.tooManyProperties(error, maxMembers);
      throw new ApiError('validationFailed', message);
    }
    if (error instanceof MalformedJsonError)
      throw new ApiError('malformedJson', ERROR_MESSAGES.malformedJson.notJson(error));
    if (error instanceof JsonTooDeepError)
      throw new ApiError('jsonTooDeep', ERROR_MESSAGES.jsonTooDeep(error));
    throw error;
  }
}

function tooLarge(limitBytes: number): ApiError {
  return new ApiError('payloadTooLarge', ERROR_MESSAGES.payloadTooLarge(limitBytes));
}

function unsupported(message: string): ApiError {
  return new ApiError('unsupportedMediaType', message);
}

function missingBody(): ApiError {
  return new ApiError('missingBody', ERROR_MESSAGES.missingBody);
}
