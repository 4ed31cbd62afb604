import { isLosslessNumber } from './lossless-number.ts';

/**
 * Serializes a value to JSON as `JSON.stringify` does (`toJSON`, `undefined` members left out,
 * `undefined` in an array as `null`), writing a `bigint` as the exact JSON integer it is and a
 * `LosslessNumber` (from `parseJson`) as its text: `JSON.stringify` throws on a bigint, and a
 * `number` would round an int64 id above 2^53. No JSON library: the client sends its request
 * body with this, in a browser bundle.
 *
 * @example
 * stringifyJson({ id: 2n ** 63n - 1n, name: 'Fern' }); // '{"id":9223372036854775807,"name":"Fern"}'
 */
export function stringifyJson(value: unknown): string {
  const text = write(value, '');
  if (text === undefined) throw new TypeError('value cannot be serialized as JSON');
  return text;
}

function write(input: unknown, key: string): string | undefined {
  const value =
    typeof (input as { toJSON?: unknown } | null)?.toJSON === 'function'
      ? (input as { toJSON(key: string): unknown }).toJSON(key)
      : input;
  if (typeof value === 'bigint') return value.toString();
  if (isLosslessNumber(value)) return value.value;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (value instanceof Number || value instanceof String || value instanceof Boolean) {
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map((item, index) => write(item, String(index)) ?? 'null').join(',')}]`;
  }
  const members: string[] = [];
  for (const [name, member] of Object.entries(value)) {
    const text = write(member, name);
    if (text !== undefined) members.push(`${JSON.stringify(name)}:${text}`);
  }
  return `{${members.join(',')}}`;
}
