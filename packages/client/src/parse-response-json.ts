import { parseJsonNumber } from '@plant-store/schema';
import { parse } from 'lossless-json';

const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Parses a response body without losing integer precision, the way the schemas expect it:
 * an integer that is a safe `number` stays a `number` (so `z.int32()` fields such as
 * `Error.error` validate), a larger one becomes a `bigint` (which `Int64` fields accept).
 * Throws on text that is not well-formed JSON, including an empty body.
 *
 * @example
 * parseResponseJson('{"error":40901,"id":9223372036854775807}');
 * // { error: 40901, id: 9223372036854775807n }
 */
export function parseResponseJson(text: string): unknown {
  return parse(text, null, parseNumber);
}

function parseNumber(text: string): bigint | number {
  const value = parseJsonNumber(text);
  return typeof value === 'bigint' && value >= MIN_SAFE && value <= MAX_SAFE
    ? Number(value)
    : value;
}
