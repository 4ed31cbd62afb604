import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP, isIPv4, isIPv6 } from 'node:net';
import proxyAddr from '@fastify/proxy-addr';
import ipaddr from 'ipaddr.js';

/** Longest key handed to a limiter; rate-limiter-flexible's PostgreSQL table holds 255. */
const MAX_KEY_LENGTH = 200;

/** The key shared by every request whose address is not an IP address (a closed socket's ''). */
export const UNKNOWN_ADDRESS = 'unknown';

/**
 * Whether the peer at `hop` (0 = the socket's, then each `X-Forwarded-For` entry from the
 * right) is a trusted reverse proxy: proxy-addr's compiled form of TRUST_PROXY.
 */
export type ProxyTrust = (address: string, hop: number) => boolean;

/**
 * TRUST_PROXY (addresses, networks such as `10.0.0.0/8`, or `loopback`, `linklocal`,
 * `uniquelocal`) as a ProxyTrust; undefined when the list is empty (trust no one).
 *
 * @example
 * const trust = proxyTrust(['127.0.0.1', '10.0.0.0/8']);
 */
export function proxyTrust(addresses: readonly string[]): ProxyTrust | undefined {
  return addresses.length === 0 ? undefined : proxyAddr.compile([...addresses]);
}

/**
 * The address a request comes from, as Express's `trust proxy` finds it (proxy-addr): the
 * socket's peer, unless that peer is a trusted proxy; then `X-Forwarded-For` is read right to
 * left, past every trusted proxy, and the first address not trusted is the client. Only what
 * trusted proxies wrote is believed, so a client reaching the port directly cannot choose its
 * address. An entry that is not an IP address is never taken: the address before it (the one
 * a trusted proxy saw) is.
 *
 * @example
 * clientAddress(req, proxyTrust(['127.0.0.1'])); // '203.0.113.7' for X-Forwarded-For: 203.0.113.7 from 127.0.0.1
 */
export function clientAddress(req: IncomingMessage, trust: ProxyTrust | undefined): string {
  const peer = req.socket.remoteAddress ?? '';
  if (trust === undefined) return peer;
  const chain = proxyAddr.all(req, trust); // [peer, trusted hops…, the first untrusted]
  for (let hop = chain.length - 1; hop > 0; hop--) {
    const address = chain[hop] ?? '';
    if (isIP(address) !== 0) return address;
  }
  return peer;
}

/**
 * The rate-limit key of a client address: an IPv4 address as is (also when it arrives
 * IPv4-mapped, `::ffff:203.0.113.7`), an IPv6 address as its /64 network — one host usually
 * owns a whole /64, so counting single IPv6 addresses would let it rotate past the limit. Text
 * that is not an IP address is never a key of its own: all of it shares `unknown`.
 *
 * @example
 * addressKey('::ffff:203.0.113.7'); // '203.0.113.7'
 * addressKey('2001:db8:0:1:aaaa::1'); // '2001:db8:0:1::/64'
 */
export function addressKey(address: string): string {
  const plain = address.replace(/%.*$/, ''); // no IPv6 zone id
  if (isIPv4(plain)) return plain;
  if (!isIPv6(plain)) return UNKNOWN_ADDRESS;
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
