import { createHash } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';

/** Longest key handed to a limiter; rate-limiter-flexible's PostgreSQL table holds 255. */
const MAX_KEY_LENGTH = 200;

/**
 * The rate-limit key of a client address: an IPv4 address as is (also when it arrives
 * IPv4-mapped, `::ffff:203.0.113.7`), an IPv6 address as its /64 network — one host usually
 * owns a whole /64, so counting single IPv6 addresses would let it rotate past the limit.
 *
 * @example
 * addressKey('::ffff:203.0.113.7'); // '203.0.113.7'
 * addressKey('2001:db8:0:1:aaaa::1'); // '2001:db8:0:1::/64'
 */
export function addressKey(address: string): string {
  const plain = address.replace(/%.*$/, ''); // no IPv6 zone id
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(plain)?.[1];
  if (mapped !== undefined && isIPv4(mapped)) return mapped;
  if (!isIPv6(plain)) return boundedKey(plain);
  const groups = expandIPv6(plain);
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

/**
 * A limiter key from any text (a credential's name): the text itself when short, else a
 * SHA-256 digest of it, so keys stay within what every limiter backend stores.
 *
 * @example
 * boundedKey('env#1'); // 'env#1'
 */
export function boundedKey(text: string): string {
  if (text.length <= MAX_KEY_LENGTH) return text;
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` and a trailing IPv4 part expanded). */
function expandIPv6(address: string): number[] {
  let text = address;
  const ipv4 = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text)?.[1];
  if (ipv4 !== undefined) {
    const [a = 0, b = 0, c = 0, d = 0] = ipv4.split('.').map(Number);
    text = `${text.slice(0, -ipv4.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const zeros = new Array<number>(8 - left.length - right.length).fill(0);
  return [...left, ...zeros, ...right];
}
