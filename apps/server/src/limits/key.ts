import type { IncomingMessage } from 'node:http';
import { isIP, isIPv4, isIPv6 } from 'node:net';
import proxyAddr from '@fastify/proxy-addr';
import ipaddr from 'ipaddr.js';

/** The key of every address that is not an IP address (a closed socket's ''). */
export const UNKNOWN_ADDRESS = 'unknown';

type ProxyTrust = (address: string, hop: number) => boolean;

/** TRUST_PROXY compiled by proxy-addr; undefined when empty (trust no one). */
export function proxyTrust(addresses: readonly string[]): ProxyTrust | undefined {
  return addresses.length === 0 ? undefined : proxyAddr.compile([...addresses]);
}

/**
 * The socket's peer or, when it is trusted, the first X-Forwarded-For address from the right
 * that is not (as Express's `trust proxy`); an entry that is not an IP address is skipped.
 * @example
 * clientAddress(req, proxyTrust(['127.0.0.1'])); // '203.0.113.7' for X-Forwarded-For: 203.0.113.7 from 127.0.0.1
 */
export function clientAddress(req: IncomingMessage, trust: ProxyTrust | undefined): string {
  const peer = req.socket.remoteAddress ?? '';
  if (trust === undefined) return peer;
  const chain = proxyAddr.all(req, trust); // [peer, trusted hops…, the first untrusted]
  return chain.slice(1).findLast((address) => isIP(address) !== 0) ?? peer;
}

/**
 * An IPv4 address (IPv4-mapped too) as is; an IPv6 address as its /64, which one host usually
 * owns whole, so it cannot rotate past the limit.
 * @example
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
