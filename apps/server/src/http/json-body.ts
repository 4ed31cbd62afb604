import { formatIssues, MalformedJsonError, parseJson } from '@plant-store/schema';
import bodyParser from 'koa-bodyparser';
import type { z } from 'zod';
import { ApiError } from '../api-error.ts';
import type { AppMiddleware } from './app-state.ts';

const JSON_TYPES = ['application/json', 'application/*+json'];

/**
 * Koa middlewares (in order) that read, parses and validate a required JSON request body against
 * `schema`, leaving the result in `ctx.state.body`:
 * - no body or an empty one → 400 `missingBody`; a non-JSON content type → 415;
 * - over `limitBytes` (counted after any gzip/deflate/br decoding) → 413;
 * - koa-bodyparser reads the raw text once; it is parsed once, losslessly, so an int64 id is
 *   never rounded; malformed JSON → 400 `malformedJson`; schema failures → 400
 *   `validationFailed`, listing every problem with its field path.
 */
export function jsonBody(schema: z.ZodType, limitBytes: number): AppMiddleware[] {
  const readText = bodyParser({
    enableTypes: ['text'],
    extendTypes: { text: JSON_TYPES },
    textLimit: String(limitBytes),
    encoding: 'utf-8',
  }) as unknown as AppMiddleware;

  const requireJson: AppMiddleware = async (ctx, next) => {
    // No body at all (no Transfer-Encoding, Content-Length absent or 0) is a missing body,
    // whatever the content type says.
    if (ctx.get('transfer-encoding') === '' && !ctx.request.length) throw missingBody();
    if (!ctx.request.is(JSON_TYPES)) {
      const given = ctx.request.type || 'no content type';
      throw new ApiError(
        'unsupportedMediaType',
        `Request body must be application/json, not ${given}`,
      );
    }
    await next();
  };

  const validate: AppMiddleware = async (ctx, next) => {
    const text = ctx.request.body;
    if (typeof text !== 'string' || text.trim() === '') throw missingBody();
    let value: unknown;
    try {
      value = parseJson(text);
    } catch (error) {
      if (error instanceof MalformedJsonError) {
        throw new ApiError('malformedJson', `Request body ${error.message}`);
      }
      throw error;
    }
    const result = schema.safeParse(value);
    if (!result.success) throw new ApiError('validationFailed', formatIssues(result.error.issues));
    ctx.state.body = result.data;
    await next();
  };

  return [requireJson, readText, validate];
}

function missingBody(): ApiError {
  return new ApiError(
    'missingBody',
    'Request body is required: send a NewPlant as application/json',
  );
}
