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
  // JSON.stringify writes everything but the exact numbers: each is written as a mark (a string
  // of U+FDD0, a noncharacter), then the marks' tokens are replaced with the numbers, in order.
  // A mark no key or string holds: tried one U+FDD0 longer until none does.
  for (let mark = '\ufdd0'; ; mark += '\ufdd0') {
    const numbers: string[] = [];
    let clash = false;
    const text = JSON.stringify(value, (key, member: unknown) => {
      if (key.includes(mark) || (typeof member === 'string' && member.includes(mark))) clash = true;
      const exact =
        typeof member === 'bigint' ? `${member}` : isLosslessNumber(member) ? member.value : '';
      if (!exact) return member;
      numbers.push(exact);
      return mark;
    });
    if (text === undefined) throw new TypeError('value cannot be serialized as JSON');
    if (!clash) return text.replaceAll(`"${mark}"`, () => numbers.shift() ?? '');
  }
}
