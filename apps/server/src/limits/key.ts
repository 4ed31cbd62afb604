import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

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
  if (!isIPv6(plain)) return boundedKey(plain);
  const ip = ipaddr.IPv6.parse(plain);
  if (ip.isIPv4MappedAddress()) return ip.toIPv4Address().toString();
  const network = ip.parts.slice(0, 4).map((group) => group.toString(16));
  return `${network.join(':')}::/64`;
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
